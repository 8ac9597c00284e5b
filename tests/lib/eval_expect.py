#!/usr/bin/env python3
"""eval_expect.py: one TAP-ready line per question of an `askql eval --out` file, against what the
test expected of it.

    python3 eval_expect.py WANT.jsonl OUT.jsonl

WANT lines: {"question": ..., "shape": NAME} (answered correctly with that question shape) or
{"question": ..., "expect": "correct"|"declined"|...} (that outcome; "not_wrong": right or declined,
never a wrong answer), optionally "rule" (a label).
Prints "OK <label> | ..." or "NOK <label> | ..." per question, in WANT's order.
"""
import json
import sys


def main(want_path, out_path):
    want = [json.loads(line) for line in open(want_path)]
    got = {o["question"]: o for o in (json.loads(line) for line in open(out_path))}
    for w in want:
        o = got.get(w["question"], {})
        if "shape" in w:
            have, wanted = "%s %s" % (o.get("outcome"), o.get("shape", "none")), "correct " + w["shape"]
        else:
            have, wanted = str(o.get("outcome")), w["expect"]
        label = (w["rule"] + ": " if "rule" in w else "") + w["question"]
        good = have == wanted or (wanted == "not_wrong" and have in ("correct", "declined", "declined_ok"))
        print("OK" if good else "NOK", label, "|", have, "| wanted", wanted, "|",
              o.get("sql") or o.get("reason", ""))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
