#!/usr/bin/env python3
"""REQ shapes beyond the issue's four, for a per-shape sweep (benchmarks/sweep/sweep.sh).

Reads the event file a relay was preloaded with (GenerateEvents' output and its .meta.json) and writes
one query per line in QueryLoad's format ({"type":..., "filter":{...}}), --per-type of each of sixteen
shapes: timelines by kind and by time window, one author's reactions or all of an author's events, a
hundred authors since a point, profiles and contact lists, an address, mentions (#p) and replies (#e),
a hashtag before a point, several hashtags with kinds, the newest 500 of everything, and NIP-50 search.

  python3 shapes.py --file main.jsonl --max-events 200000 --out shapes.jsonl [--per-type 60] [--seed 7]

Standard library only.
"""
import argparse
import json
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", required=True)
    ap.add_argument("--max-events", type=int, default=200000)
    ap.add_argument("--out", required=True)
    ap.add_argument("--per-type", type=int, default=60)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    events = []
    with open(a.file) as f:
        for i, line in enumerate(f):
            if i >= a.max_events:
                break
            events.append(json.loads(line))
    hashtags = json.load(open(a.file + ".meta.json"))["hashtags"]
    times = sorted(e["created_at"] for e in events)
    lo, hi = times[0], times[-1]
    notes = [e["id"] for e in events if e["kind"] == 1]
    authors = [e["pubkey"] for e in events]  # one entry per event: drawing follows author activity
    articles = [(e["pubkey"], next(t[1] for t in e["tags"] if t[0] == "d"))
                for e in events if e["kind"] == 30023]
    words = ["relay", "forest", "protocol", "café", "video", "mountain", "signal", "river"]
    with open(a.out, "w") as out:
        def q(kind, flt):
            out.write(json.dumps({"type": kind, "filter": flt}) + "\n")
        for _ in range(a.per_type):
            t = rnd.randint(lo, hi)
            q("kind1", {"kinds": [1], "limit": 100})
            q("until", {"until": t, "limit": 100})
            q("kind-window", {"kinds": [1], "since": t - 3600, "until": t, "limit": 500})
            q("ptag", {"#p": [rnd.choice(authors)], "limit": 100})
            q("etag", {"#e": [rnd.choice(notes)]})
            q("profiles", {"kinds": [0], "authors": rnd.sample(authors, 20)})
            q("contacts", {"kinds": [3], "authors": [rnd.choice(authors)]})
            pk, d = rnd.choice(articles)
            q("address", {"kinds": [30023], "authors": [pk], "#d": [d]})
            q("search", {"search": rnd.choice(words), "limit": 50})
            q("author-k7", {"authors": [rnd.choice(authors)], "kinds": [7], "limit": 100})
            q("authors100-since", {"authors": rnd.sample(authors, 100), "since": t, "limit": 500})
            q("tag-until", {"#t": [rnd.choice(hashtags)], "until": t, "limit": 100})
            q("author-nolimit", {"authors": [rnd.choice(authors)]})
            q("global500", {"limit": 500})
            q("ptag-k1-since", {"kinds": [1], "#p": [rnd.choice(authors)], "since": t - 86400})
            q("kinds-multi-tag", {"kinds": [1, 30023], "#t": rnd.sample(hashtags, 3), "limit": 100})


if __name__ == "__main__":
    main()
