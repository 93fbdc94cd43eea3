"""Text for the MiniLM evaluation (written for Octet; no external data set).

EVAL: 32 sentences in 8 topics of 4 (a topic's sentences say related things
in different words), used for the end-to-end metrics: cosine similarity of
each quantized embedding to the float one, the rank correlation of all 496
pairwise similarities, nearest-neighbour agreement and same-topic retrieval.

CALIB: 32 other sentences on other subjects, used only to calibrate the
static W8A8 activation scales (held out from EVAL: no sentence, and no topic,
is shared).
"""

EVAL_TOPICS = [
    ("cooking", [
        "A man is slicing onions in the kitchen.",
        "Someone chops vegetables for the evening soup.",
        "She is frying eggs in a small pan.",
        "The chef stirs the sauce and tastes it.",
    ]),
    ("weather", [
        "Heavy rain is expected across the region tomorrow.",
        "The forecast says a storm will arrive tonight.",
        "It has been sunny and warm all week.",
        "Snow closed the mountain roads this morning.",
    ]),
    ("football", [
        "The striker scored twice in the second half.",
        "Our team won the match after extra time.",
        "The goalkeeper saved a penalty in the final minute.",
        "Fans cheered as the ball hit the back of the net.",
    ]),
    ("programming", [
        "The compiler reports an error on line twelve.",
        "He fixed the bug by changing one loop condition.",
        "This function returns a list of sorted integers.",
        "Unit tests run automatically on every commit.",
    ]),
    ("animals", [
        "A cat is sleeping on the warm windowsill.",
        "The dog chased the ball across the park.",
        "Two kittens are playing with a piece of string.",
        "A puppy barks at the mail carrier every day.",
    ]),
    ("finance", [
        "The central bank raised interest rates again.",
        "Stock prices fell sharply after the announcement.",
        "Inflation slowed for the third month in a row.",
        "Investors moved their money into government bonds.",
    ]),
    ("travel", [
        "We boarded the night train to the coast.",
        "The flight was delayed by two hours.",
        "They rented a car to drive along the cliffs.",
        "Our hotel room overlooked the old harbour.",
    ]),
    ("music", [
        "She plays the violin in the city orchestra.",
        "The band released a new album last Friday.",
        "He practises piano scales every morning.",
        "The concert ended with a long standing ovation.",
    ]),
]

EVAL = [s for _, ss in EVAL_TOPICS for s in ss]
EVAL_LABELS = [i for i, (_, ss) in enumerate(EVAL_TOPICS) for _ in ss]

CALIB = [
    "The library opens at nine on weekdays.",
    "A farmer harvests wheat before the rain.",
    "The museum added a room of ancient coins.",
    "Students waited in line to register for classes.",
    "The bridge was painted bright red last summer.",
    "A nurse checked the patient's temperature.",
    "Volcanic ash covered the village overnight.",
    "The committee postponed its decision until March.",
    "He repaired the bicycle chain with a pair of pliers.",
    "Astronomers observed a comet near the horizon.",
    "The bakery sells fresh bread every morning.",
    "Our neighbours planted tomatoes in the garden.",
    "The printer ran out of ink during the meeting.",
    "A lighthouse guided the ships through the fog.",
    "The election results were announced at midnight.",
    "She translated the letter from Portuguese.",
    "The river flooded the fields after the storm.",
    "A new vaccine was approved by the regulators.",
    "The children built a sandcastle on the beach.",
    "He lost his keys somewhere in the train station.",
    "The factory doubled its output of solar panels.",
    "Old photographs were found in the attic.",
    "The senator gave a speech about healthcare.",
    "Bees collect pollen from the lavender fields.",
    "The marathon route passes through the city centre.",
    "A glacier slowly carved the valley over millennia.",
    "The teacher graded the essays over the weekend.",
    "Firefighters rescued a family from the burning house.",
    "The spacecraft sent back images of Jupiter's moons.",
    "A tailor adjusted the sleeves of the jacket.",
    "The council voted to build a new swimming pool.",
    "Rare orchids bloom in the greenhouse in spring.",
]

assert len(EVAL) == 32 and len(CALIB) == 32
assert not set(EVAL) & set(CALIB)
