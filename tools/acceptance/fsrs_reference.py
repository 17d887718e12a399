#!/usr/bin/env python3
"""Runs the reference FSRS-6 scheduler (PyPI fsrs 6.3.2, fuzz off) over review sequences and prints
every step's card, for Tests/FSRSTests to compare with Quire's FSRSScheduler.

stdin:  {"config": {"desired_retention": 0.9, "learning_steps": [60, 600], "relearning_steps": [600],
                    "maximum_interval": 36500},
         "sequences": [[{"rating": 1..4, "at": <epoch seconds>}, ...], ...]}
stdout: [[{"state": 1..3, "step": int|null, "stability": float, "difficulty": float,
           "due": <epoch seconds>, "retrievability": float}, ...], ...]
"""
import json
import sys
from datetime import datetime, timedelta, timezone

import fsrs

def main():
    request = json.load(sys.stdin)
    config = request["config"]
    scheduler = fsrs.Scheduler(desired_retention=config["desired_retention"],
                               learning_steps=[timedelta(seconds=s) for s in config["learning_steps"]],
                               relearning_steps=[timedelta(seconds=s) for s in config["relearning_steps"]],
                               maximum_interval=config["maximum_interval"], enable_fuzzing=False)
    results = []
    for sequence in request["sequences"]:
        card = fsrs.Card(card_id=1, due=datetime.fromtimestamp(sequence[0]["at"], timezone.utc))
        steps = []
        for review in sequence:
            at = datetime.fromtimestamp(review["at"], timezone.utc)
            card, _ = scheduler.review_card(card, fsrs.Rating(review["rating"]), review_datetime=at)
            steps.append({"state": card.state.value, "step": card.step, "stability": card.stability,
                          "difficulty": card.difficulty, "due": card.due.timestamp(),
                          "retrievability": scheduler.get_card_retrievability(card, at + timedelta(days=3))})
        results.append(steps)
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
