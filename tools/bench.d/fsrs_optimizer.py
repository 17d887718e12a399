#!/usr/bin/env python3
"""Our FSRS-6 optimizer (Modules/FSRS, FSRSOptimizer, through tools/quire-fsrs-fit) against the
reference, fsrs-rs (PyPI `fsrs-rs-python` 0.9.3, the optimizer Anki uses), on the same review log.

The log is simulated with a seeded generator: cards learned over a year by a simulated user whose
memory follows FSRS-6 with known parameters (TRUE_W): each review on a later day is recalled with
the probability the true model predicts, learning and relearning steps happen the same day. The
cards are split 80/20 (seeded); both optimizers fit the 80 %, and the same evaluator (the
reference's `FSRS(parameters).evaluate`) scores both fits on the held-out 20 %.

    pip install fsrs-rs-python==0.9.3
    swift build -c release --product quire-fsrs-fit
    nice python3 tools/bench.d/fsrs_optimizer.py --binary .build/release/quire-fsrs-fit --reviews 100000

Prints one JSON object: both test losses, their ratio, the fit times and the parameters. Exits 1
if ours is more than 1 % worse than the reference's or the fit took 30 s or more.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time

# A simulated user, not the defaults: every parameter moved, so a fit has something to find.
TRUE_W = [0.35, 1.1, 3.2, 12.0, 6.2, 0.65, 2.4, 0.02, 1.65, 0.2, 0.9, 1.6, 0.09, 0.32, 1.8, 0.5, 2.2,
          0.45, 0.2, 0.1, 0.25]


class Memory:
    """FSRS-6's memory model (fsrs-rs `model_v6.rs`), on floats."""

    def __init__(self, w):
        self.w = w
        self.decay = -w[20]
        self.factor = 0.9 ** (1 / self.decay) - 1

    def recall(self, elapsed, s):
        return (1 + self.factor * elapsed / s) ** self.decay

    def interval(self, s, retention=0.9):
        return s / self.factor * (retention ** (1 / self.decay) - 1)

    def init(self, rating):
        w = self.w
        return max(w[rating - 1], 0.001), min(max(w[4] - math.exp(w[5] * (rating - 1)) + 1, 1), 10)

    def step(self, s, d, elapsed, rating):
        w = self.w
        if elapsed > 0:
            r = self.recall(elapsed, s)
            if rating == 1:
                long_term = w[11] * d ** -w[12] * ((s + 1) ** w[13] - 1) * math.exp((1 - r) * w[14])
                s = min(long_term, s / math.exp(w[17] * w[18]))
            else:
                bonus = w[15] if rating == 2 else w[16] if rating == 4 else 1
                s = s * (1 + math.exp(w[8]) * (11 - d) * s ** -w[9] * (math.exp((1 - r) * w[10]) - 1) * bonus)
        else:
            sinc = math.exp(w[17] * (rating - 3 + w[18])) * s ** -w[19]
            s = s * (max(sinc, 1) if rating >= 2 else sinc)
        s = min(max(s, 0.001), 36500)
        easy = w[4] - math.exp(w[5] * 3) + 1
        damped = d + (10 - d) * (-w[6] * (rating - 3)) / 9
        d = min(max(w[7] * easy + (1 - w[7]) * damped, 1), 10)
        return s, d


def simulate(reviews_wanted, seed, days=365):
    """A review log of about `reviews_wanted` reviews: [(card, day, rating)] in time order per card."""
    rng = random.Random(seed)
    memory = Memory(TRUE_W)
    log = []
    card = 0
    while len(log) < reviews_wanted:
        card += 1
        day = rng.randrange(days)
        rating = rng.choices([1, 2, 3, 4], [0.25, 0.1, 0.55, 0.1])[0]
        s, d = memory.init(rating)
        log.append((card, day, rating))
        steps = 0
        while rating in (1, 2) and steps < 3:  # learning steps, the same day
            rating = 3 if rng.random() < 0.85 else 1
            s, d = memory.step(s, d, 0, rating)
            log.append((card, day, rating))
            steps += 1
        while True:
            interval = max(1, round(memory.interval(s) * rng.uniform(0.95, 1.05)))
            day += interval
            if day >= days:
                break
            recalled = rng.random() < memory.recall(interval, s)
            rating = rng.choices([2, 3, 4], [0.1, 0.8, 0.1])[0] if recalled else 1
            s, d = memory.step(s, d, interval, rating)
            log.append((card, day, rating))
            if rating == 1:  # one relearning step, the same day
                rating = 3 if rng.random() < 0.9 else 2
                s, d = memory.step(s, d, 0, rating)
                log.append((card, day, rating))
    return log


def by_card(log):
    cards = {}
    for card, day, rating in log:
        cards.setdefault(card, []).append((day, rating))
    return cards


def items(cards):
    """The reference's training items: each card's reviews up to each review on a later day."""
    import fsrs_rs_python as fsrs
    result = []
    for reviews in cards.values():
        converted, elapsed = [], []
        previous = reviews[0][0]
        for day, rating in reviews:
            converted.append(fsrs.FSRSReview(rating, day - previous))
            elapsed.append(day - previous)
            previous = day
        for end in range(1, len(converted)):
            if elapsed[end] > 0:
                result.append(fsrs.FSRSItem(converted[:end + 1]))
    return result


def write_csv(path, cards):
    with open(path, "w") as f:
        f.write("card,day,rating\n")
        for card, reviews in cards.items():
            for day, rating in reviews:
                f.write(f"c{card},{day},{rating}\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/release/quire-fsrs-fit")
    parser.add_argument("--reviews", type=int, default=100_000, help="reviews in the training 80 %%")
    parser.add_argument("--seed", type=int, default=41)
    args = parser.parse_args()
    import fsrs_rs_python as fsrs

    log = simulate(int(args.reviews / 0.8), args.seed)
    cards = by_card(log)
    ids = sorted(cards)
    random.Random(args.seed).shuffle(ids)
    cut = int(len(ids) * 0.8)
    train = {c: cards[c] for c in ids[:cut]}
    test = {c: cards[c] for c in ids[cut:]}
    train_items, test_items = items(train), items(test)

    started = time.monotonic()
    reference = fsrs.FSRS(fsrs.DEFAULT_PARAMETERS).compute_parameters(train_items)
    reference_seconds = time.monotonic() - started

    with tempfile.TemporaryDirectory() as folder:
        write_csv(os.path.join(folder, "train.csv"), train)
        write_csv(os.path.join(folder, "test.csv"), test)
        started = time.monotonic()
        out = subprocess.run([args.binary, "--train", os.path.join(folder, "train.csv"), "--test", os.path.join(folder, "test.csv")],
                             check=True, capture_output=True, text=True).stdout
        ours_wall = time.monotonic() - started
    ours = json.loads(out)

    def loss(w):
        return fsrs.FSRS(w).evaluate(test_items).log_loss

    result = {
        "train_reviews": sum(len(r) for r in train.values()), "test_reviews": sum(len(r) for r in test.values()),
        "train_items": len(train_items), "test_items": len(test_items),
        "test_log_loss": {"ours": loss(ours["parameters"]), "reference": loss(reference),
                          "defaults": loss(fsrs.DEFAULT_PARAMETERS), "true": loss(TRUE_W)},
        "our_evaluator": {"ours": ours.get("testLoss"), "defaults": ours.get("testLossDefault")},
        "fit_seconds": {"ours": ours["fitSeconds"], "ours_wall_with_reading": round(ours_wall, 3), "reference": round(reference_seconds, 3)},
        "parameters": {"ours": [round(x, 4) for x in ours["parameters"]], "reference": [round(x, 4) for x in reference], "true": TRUE_W},
    }
    losses = result["test_log_loss"]
    result["ours_over_reference"] = losses["ours"] / losses["reference"]
    print(json.dumps(result))
    ok = result["ours_over_reference"] <= 1.01 and ours["fitSeconds"] < 30
    print("PASS" if ok else "FAIL", f"ours {losses['ours']:.5f} vs reference {losses['reference']:.5f} "
          f"({(result['ours_over_reference'] - 1) * 100:+.2f} %), fit {ours['fitSeconds']:.2f} s", file=sys.stderr)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
