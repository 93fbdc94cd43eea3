#!/usr/bin/env python3
"""octet-report: turn an octet-quantize-weights report (JSON) into one
self-contained HTML page (inline CSS and SVG, no scripts, no network):

  * a summary: bytes before/after and saved, compression, SQNR min/median;
  * per-layer SQNR bars;
  * per-layer error histograms (|x - x^| in units of the layer's scale);
  * per-layer clip trade-off curves (SQNR against the clip ratio, the
    chosen clip marked);
  * the full per-layer table.

Given the JSON of the range monitor instead (octet-run --monitor,
octet_monitor_write_json; docs/monitoring.md), the page shows per
quantizer the clip rate and the largest |x| against the representable
range; with --baseline (the monitor's JSON on the calibration data) both
rates side by side, the layers whose rate rose first and marked.

Usage: octet-report REPORT.json [-o REPORT.html] [--title TEXT]
                    [--baseline MONITOR.json]

The JSON stays the machine-readable form; this page is for people.
"""

import argparse
import html
import json
import math
import sys

W_BAR = 560  # width of the bar area in the SQNR chart


def esc(s):
    return html.escape(str(s), quote=True)


def fmt_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return ("%.0f %s" if unit == "B" else "%.2f %s") % (n, unit)
        n /= 1024.0


def sqnr_color(db):
    if db is None or (isinstance(db, float) and math.isinf(db)):
        return "#2e7d32"
    if db >= 35:
        return "#2e7d32"
    if db >= 25:
        return "#f9a825"
    return "#c62828"


def sqnr_text(db):
    if db is None:
        return "exact"
    return "%.2f dB" % db


def summary_svg(summary):
    before = summary.get("bytes_before", 0) or 0
    after = summary.get("bytes_after", 0) or 0
    width = 600
    w_after = int(width * after / before) if before else 0
    return (
        '<svg class="bytes" width="%d" height="58" role="img" '
        'aria-label="bytes before and after">'
        '<rect x="0" y="4" width="%d" height="20" fill="#90a4ae"/>'
        '<text x="6" y="19" fill="#fff">before: %s</text>'
        '<rect x="0" y="32" width="%d" height="20" fill="#1565c0"/>'
        '<text x="%d" y="47" fill="#263238">after: %s (%s saved)</text>'
        "</svg>" % (width, width, esc(fmt_bytes(before)), max(w_after, 1),
                    max(w_after, 1) + 6, esc(fmt_bytes(after)),
                    esc(fmt_bytes(before - after))))


def sqnr_bars_svg(layers):
    q = [l for l in layers if l.get("quantized")]
    if not q:
        return "<p>No quantized layers.</p>"
    finite = [l["sqnr_db"] for l in q if l.get("sqnr_db") is not None]
    top = max(finite + [60.0])
    row, label_w = 22, 180
    h = row * len(q) + 30
    parts = ['<svg class="sqnr" width="%d" height="%d" role="img" '
             'aria-label="SQNR per layer">' % (label_w + W_BAR + 90, h)]
    for i, l in enumerate(q):
        db = l.get("sqnr_db")
        w = W_BAR if db is None else max(1, int(W_BAR * max(db, 0) / top))
        y = 4 + i * row
        parts.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (
            label_w - 6, y + 14, esc(l["name"])))
        parts.append('<rect class="bar" x="%d" y="%d" width="%d" height="16" '
                     'fill="%s"><title>%s: %s</title></rect>' % (
                         label_w, y, w, sqnr_color(db), esc(l["name"]),
                         esc(sqnr_text(db))))
        parts.append('<text x="%d" y="%d">%s</text>' % (
            label_w + w + 6, y + 14, esc(sqnr_text(db))))
    # Axis with ticks every 10 dB.
    y = 4 + len(q) * row + 4
    parts.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#607d8b"/>' % (
        label_w, y, label_w + W_BAR, y))
    tick = 0
    while tick <= top:
        x = label_w + int(W_BAR * tick / top)
        parts.append('<text x="%d" y="%d" text-anchor="middle" '
                     'class="tick">%d</text>' % (x, y + 14, tick))
        tick += 10
    parts.append("</svg>")
    return "".join(parts)


def histogram_svg(layer):
    h = layer.get("error_histogram") or {}
    counts = h.get("counts") or []
    edges = h.get("upper_edges") or []
    if not counts:
        return ""
    width, height = 240, 90
    peak = max(counts) or 1
    n = len(counts)
    bw = width / n
    parts = ['<svg class="hist" width="%d" height="%d" role="img" '
             'aria-label="error histogram of %s">' % (width, height + 16,
                                                      esc(layer["name"]))]
    for i, c in enumerate(counts):
        bh = int(height * c / peak)
        edge = edges[i] if i < len(edges) else None
        parts.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" '
                     'fill="#5e35b1"><title>|err| &lt;= %s scale: %d</title>'
                     '</rect>' % (i * bw + 1, height - bh, max(bw - 2, 1), bh,
                                  esc(edge if edge is not None else "inf"), c))
    parts.append('<text x="0" y="%d" class="tick">0</text>' % (height + 14))
    parts.append('<text x="%d" y="%d" text-anchor="end" class="tick">'
                 '|x - x&#770;| / scale</text>' % (width, height + 14))
    parts.append("</svg>")
    return "".join(parts)


def curve_svg(layer):
    curve = [p for p in (layer.get("clip_curve") or [])
             if p.get("sqnr_db") is not None]
    if len(curve) < 2:
        return ""
    width, height, pad = 260, 110, 30
    xs = [p["ratio"] for p in curve]
    ys = [p["sqnr_db"] for p in curve]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    if y1 - y0 < 1e-9:
        y1 = y0 + 1

    def px(x):
        return pad + (width - pad - 6) * (x - x0) / (x1 - x0)

    def py(y):
        return 6 + (height - 6) * (1 - (y - y0) / (y1 - y0))

    pts = " ".join("%.1f,%.1f" % (px(x), py(y)) for x, y in zip(xs, ys))
    parts = ['<svg class="curve" width="%d" height="%d" role="img" '
             'aria-label="clip trade-off of %s">' % (width, height + 20,
                                                     esc(layer["name"]))]
    parts.append('<polyline points="%s" fill="none" stroke="#00838f" '
                 'stroke-width="2"/>' % pts)
    chosen = (layer.get("clip_ratio") or {}).get("mean")
    if chosen is not None:
        # SQNR at the chosen ratio, interpolated on the curve.
        c = min(max(chosen, x0), x1)
        y = ys[-1]
        for (xa, ya), (xb, yb) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
            if xa <= c <= xb:
                y = ya + (yb - ya) * ((c - xa) / (xb - xa) if xb > xa else 0)
                break
        parts.append('<circle class="chosen" cx="%.1f" cy="%.1f" r="5" '
                     'fill="#d84315"><title>chosen clip: %.3f of the range, '
                     '%s</title></circle>' % (px(c), py(y), chosen,
                                              esc(layer.get("clip", ""))))
    parts.append('<text x="%d" y="%d" class="tick">%.2f</text>' % (
        pad, height + 16, x0))
    parts.append('<text x="%d" y="%d" text-anchor="end" class="tick">'
                 'clip ratio %.2f</text>' % (width - 6, height + 16, x1))
    parts.append('<text x="2" y="14" class="tick">%.1f dB</text>' % y1)
    parts.append('<text x="2" y="%d" class="tick">%.1f</text>' % (height, y0))
    parts.append("</svg>")
    return "".join(parts)


CSS = """
body { font: 14px/1.4 system-ui, sans-serif; color: #263238; margin: 24px; }
h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 28px; }
.summary td { padding: 2px 14px 2px 0; }
svg text { font: 12px system-ui, sans-serif; fill: #263238; }
svg text.tick { font-size: 10px; fill: #607d8b; }
.layers { display: flex; flex-wrap: wrap; gap: 18px; }
.layer { border: 1px solid #cfd8dc; border-radius: 6px; padding: 8px 12px; }
.layer h3 { font-size: 14px; margin: 2px 0 6px; }
table.all { border-collapse: collapse; }
table.all th, table.all td { border-bottom: 1px solid #eceff1;
  padding: 3px 8px; text-align: right; }
table.all th:first-child, table.all td:first-child { text-align: left; }
"""


def render(report, title):
    layers = report.get("layers", [])
    s = report.get("summary", {})
    opts = report.get("options", {})
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>%s</title>" % esc(title), "<style>%s</style>" % CSS,
           "</head><body>", "<h1>%s</h1>" % esc(title)]
    comp = s.get("compression")
    out.append('<table class="summary">')
    for k, v in (
        ("options", ", ".join("%s=%s" % (k, v) for k, v in opts.items())),
        ("layers quantized", s.get("layers_quantized")),
        ("layers skipped", s.get("layers_skipped")),
        ("bytes", "%s &rarr; %s" % (esc(fmt_bytes(s.get("bytes_before", 0))),
                                    esc(fmt_bytes(s.get("bytes_after", 0))))),
        ("compression", "%.2fx" % comp if comp else "-"),
        ("SQNR min / median", "%s / %s" % (sqnr_text(s.get("sqnr_db_min")),
                                           sqnr_text(s.get("sqnr_db_median")))),
    ):
        val = v if k == "bytes" else esc(v)
        out.append("<tr><td>%s</td><td>%s</td></tr>" % (esc(k), val))
    out.append("</table>")
    out.append("<h2>Bytes saved</h2>" + summary_svg(s))
    out.append("<h2>SQNR per layer</h2>" + sqnr_bars_svg(layers))
    out.append("<h2>Error histograms and clip trade-off per layer</h2>")
    out.append('<div class="layers">')
    for l in layers:
        if not l.get("quantized"):
            continue
        out.append('<div class="layer"><h3>%s <small>%s %s</small></h3>' % (
            esc(l["name"]), esc(l.get("format", "")),
            esc(l.get("granularity", ""))))
        out.append(histogram_svg(l))
        out.append(curve_svg(l))
        out.append("</div>")
    out.append("</div>")
    out.append('<h2>All layers</h2><table class="all"><tr><th>layer</th>'
               "<th>shape</th><th>scheme</th><th>clip</th><th>SQNR</th>"
               "<th>max |err|</th><th>bytes before</th><th>after</th></tr>")
    for l in layers:
        shape = "x".join(str(d) for d in l.get("shape", []))
        if l.get("quantized"):
            out.append(
                "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
                "<td>%.3g</td><td>%d</td><td>%d</td></tr>" % (
                    esc(l["name"]), esc(shape), esc(l.get("scheme", "")),
                    esc(l.get("clip", "")), esc(sqnr_text(l.get("sqnr_db"))),
                    l.get("max_abs_error", 0), l.get("bytes_before", 0),
                    l.get("bytes_after", 0)))
        else:
            out.append("<tr><td>%s</td><td>%s</td><td colspan=\"4\">skipped: "
                       "%s</td><td>%d</td><td>%d</td></tr>" % (
                           esc(l["name"]), esc(shape),
                           esc(l.get("skip_reason", "")),
                           l.get("bytes_before", 0), l.get("bytes_before", 0)))
    out.append("</table></body></html>")
    return "\n".join(out)


def clip_rate(layer):
    return layer["clipped"] / layer["values"] if layer.get("values") else 0.0


def pct(r):
    return "%.4f%%" % (100.0 * r)


def monitor_bars_svg(rows):
    """Clip rate per layer (and the baseline's, thinner, above it), on a
    linear axis up to the largest rate."""
    top = max([r for _, r, b in rows] + [b for _, r, b in rows
                                         if b is not None] + [1e-9])
    bar_h, gap, left = 12, 6, 260
    h = len(rows) * (bar_h + gap) + 30
    out = ['<svg class="cliprate" width="%d" height="%d" role="img" '
           'aria-label="clip rate per layer">' % (left + W_BAR + 90, h)]
    for i, (name, r, b) in enumerate(rows):
        y = 10 + i * (bar_h + gap)
        rose = b is not None and r > b
        out.append('<text x="%d" y="%d" text-anchor="end">%s</text>'
                   % (left - 6, y + bar_h - 2, esc(name)))
        if b is not None:
            out.append('<rect class="base" x="%d" y="%d" width="%d" '
                       'height="3" fill="#90a4ae"/>'
                       % (left, y, int(W_BAR * b / top)))
        out.append('<rect class="bar" x="%d" y="%d" width="%d" height="%d" '
                   'fill="%s"/>' % (left, y + 4, max(1, int(W_BAR * r / top))
                                    if r else 0, bar_h - 4,
                                    "#c62828" if rose else "#1565c0"))
        out.append('<text class="tick" x="%d" y="%d">%s</text>'
                   % (left + W_BAR + 6, y + bar_h - 2, esc(pct(r))))
    out.append("</svg>")
    return "".join(out)


def render_monitor(report, baseline, title):
    layers = report.get("layers", [])
    base = {l["name"]: l for l in (baseline or {}).get("layers", [])}
    values = sum(l["values"] for l in layers)
    clipped = sum(l["clipped"] for l in layers)
    rows = []
    for l in layers:
        b = base.get(l["name"])
        rows.append((l["name"], clip_rate(l),
                     clip_rate(b) if b is not None else None, l, b))
    # Largest rise first (without a baseline: largest rate first).
    rows.sort(key=lambda r: -(r[1] - (r[2] or 0.0)))
    rose = [r for r in rows if r[2] is not None and r[1] > r[2]]
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>%s</title>" % esc(title), "<style>%s</style>" % CSS,
           "</head><body>", "<h1>%s</h1>" % esc(title),
           '<table class="summary">']
    summary = [("quantizers", len(layers)),
               ("values seen", values),
               ("clipped", "%d (%s)" % (clipped, pct(clipped / values)
                                        if values else "-")),
               ("quantizers that clipped",
                sum(1 for l in layers if l["clipped"]))]
    if baseline is not None:
        summary.append(("clip rate rose in", "%d of %d" % (len(rose),
                                                           len(layers))))
    for k, v in summary:
        out.append("<tr><td>%s</td><td>%s</td></tr>" % (esc(k), esc(v)))
    out.append("</table>")
    out.append("<h2>Clip rate per quantizer%s</h2>" % (
        " (grey: baseline; red: rose)" if baseline is not None else ""))
    out.append(monitor_bars_svg([(n, r, b) for n, r, b, _, _ in rows]))
    out.append('<h2>All quantizers</h2><table class="all"><tr><th>quantizer'
               "</th><th>format</th><th>scale</th><th>range</th>"
               "<th>values</th><th>clipped</th><th>clip rate</th>%s"
               "<th>max |x|</th>%s<th>max |x| / range</th></tr>"
               % ("<th>baseline rate</th>" if baseline is not None else "",
                  "<th>baseline max |x|</th>" if baseline is not None
                  else ""))
    for name, r, b, l, bl in rows:
        extra_rate = ("<td>%s</td>" % (pct(b) if b is not None else "-")
                      if baseline is not None else "")
        extra_max = ("<td>%s</td>" % ("%.4g" % bl["absmax"] if bl else "-")
                     if baseline is not None else "")
        rng = l.get("range") or [None, None]
        out.append(
            "<tr%s><td>%s</td><td>%s</td><td>%.6g</td><td>[%.4g, %.4g]</td>"
            "<td>%d</td><td>%d</td><td>%s</td>%s<td>%.4g</td>%s<td>%.3g</td>"
            "</tr>" % (' class="rose"' if b is not None and r > b else "",
                       esc(name), esc(l.get("format", "")), l["scale"],
                       rng[0] or 0.0, rng[1] or 0.0, l["values"],
                       l["clipped"], pct(r), extra_rate, l["absmax"],
                       extra_max, l.get("absmax_over_range") or 0.0))
    out.append("</table></body></html>")
    return "\n".join(out)


def load_json(path):
    try:
        with open(path) as fh:
            return json.load(fh)
    except (OSError, ValueError) as e:
        sys.exit("octet-report: error: cannot read '%s': %s" % (path, e))


def is_monitor(report):
    return (isinstance(report, dict) and report.get("format") ==
            "octet-monitor" and isinstance(report.get("layers"), list))


def check_monitor(report, path):
    """Every field the page reads, with its type: a clear error, not a
    traceback."""
    for i, l in enumerate(report["layers"]):
        for key, types in (("name", str), ("values", int), ("clipped", int),
                           ("scale", (int, float)), ("absmax", (int, float))):
            if not isinstance(l, dict) or not isinstance(l.get(key), types):
                sys.exit("octet-report: error: '%s': layer %d has no valid "
                         "'%s'" % (path, i, key))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", help="JSON written by octet-quantize-weights "
                    "report=FILE.json, or by the range monitor (octet-run "
                    "--monitor=FILE.json)")
    ap.add_argument("-o", "--output", default="-",
                    help="HTML file to write (default: stdout)")
    ap.add_argument("--title", help="page title (default: Octet "
                    "quantization report / Octet range monitor)")
    ap.add_argument("--baseline", help="monitor reports: the monitor's JSON "
                    "on the calibration data, to compare with")
    args = ap.parse_args()
    report = load_json(args.report)
    if is_monitor(report):
        check_monitor(report, args.report)
        baseline = None
        if args.baseline:
            baseline = load_json(args.baseline)
            if not is_monitor(baseline):
                sys.exit("octet-report: error: '%s' is not a range monitor "
                         "report" % args.baseline)
            check_monitor(baseline, args.baseline)
        page = render_monitor(report, baseline,
                              args.title or "Octet range monitor")
    elif (not isinstance(report, dict) or
          report.get("pass") != "octet-quantize-weights" or
          "layers" not in report):
        sys.exit("octet-report: error: '%s' is neither an "
                 "octet-quantize-weights report nor a range monitor report"
                 % args.report)
    else:
        if args.baseline:
            sys.exit("octet-report: error: --baseline is for range monitor "
                     "reports")
        page = render(report, args.title or "Octet quantization report")
    if args.output == "-":
        sys.stdout.write(page)
    else:
        with open(args.output, "w") as fh:
            fh.write(page)


if __name__ == "__main__":
    main()
