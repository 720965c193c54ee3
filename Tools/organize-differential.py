#!/usr/bin/env python3
"""Incremental organize against a whole one, on random changes to a library, through the CLI.

    Tools/organize-differential.py [--shoebox BIN] [--corpus DIR] [--seeds 1-4] [--rounds 12] [--work DIR]

The corpus is hard-linked into a library (sources are only read: files are renamed, moved, copied and
deleted in the linked tree, never written) and ingested. Each round makes one to three random changes —
a folder renamed or moved into another, a file moved, copied or deleted, and through `shoebox change` an
asset re-dated, located elsewhere, sent to or restored from Recently Deleted — then ingests (an incremental
organize) and compares the catalog with a copy given `shoebox rederive` (a whole organize): every
collection with its title, dates and members, every collection list, and each asset's burst, place and
local-time columns. The first difference stops the run with the seed, the round and the changes made
(exit 2). OrganizeIncrementalTests checks the same in process; this drives the binary a user runs.

The catalogs are read with the `sqlite3` command, not Python's module: a connection Python's garbage
collector has not closed yet loses its POSIX locks when `shutil.copy` opens and closes the same file in this
process, and that connection then reads a WAL another process reset ("database disk image is malformed").
Needs python3, the sqlite3 command, and a shoebox binary (default: <repo>/.build/release/shoebox).
"""
import argparse
import os
import random
import shutil
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(here)


def parse_seeds(text):
    if "-" in text:
        a, b = text.split("-", 1)
        return list(range(int(a), int(b) + 1))
    return [int(s) for s in text.split(",")]


ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--shoebox", default=os.environ.get("SHOEBOX", os.path.join(repo, ".build/release/shoebox")))
ap.add_argument("--corpus", default=os.environ.get("SHOEBOX_CORPUS", os.path.join(repo, "../shared/corpus")))
ap.add_argument("--seeds", default="1-4", type=parse_seeds, help="e.g. 1-4 or 3,7")
ap.add_argument("--rounds", default=12, type=int)
ap.add_argument("--work", default=None, help="a folder to work in (default: a temporary one, removed)")
ap.add_argument("--rederive", action="store_true", help="also compare with `shoebox rederive` (assets derived again from the facts)")
args = ap.parse_args()
if not os.path.isdir(args.corpus):
    sys.exit(f"organize-differential: no corpus at {args.corpus} (--corpus)")
if not os.access(args.shoebox, os.X_OK):
    sys.exit(f"organize-differential: no shoebox binary at {args.shoebox} (--shoebox)")
env = dict(os.environ)
gazetteer = os.path.join(repo, ".build/gazetteer/gazetteer.bin")
if "SHOEBOX_GAZETTEER" not in env and os.path.exists(gazetteer):
    env["SHOEBOX_GAZETTEER"] = gazetteer


def shoebox(*a):
    r = subprocess.run([args.shoebox, *a], env=env, capture_output=True, text=True)
    if r.returncode not in (0, 1):  # 1: a change refused (e.g. restoring what is not deleted)
        sys.exit(f"shoebox {' '.join(a)}: exit {r.returncode}\n{r.stderr[-800:]}")
    return r


def sql(db, query):
    r = subprocess.run(["sqlite3", "-separator", "\x1f", db, query], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"sqlite3 {db}: {r.stderr.strip()}")
    return [line for line in r.stdout.split("\n") if line]


def state(db):
    return {
        "collections": sql(
            db,
            "SELECT c.local_identifier, c.type, c.subtype, c.title, c.start_date, c.end_date, (SELECT group_concat(a.local_identifier)"
            " FROM collection_membership m JOIN asset a ON a.id = m.asset_id WHERE m.collection_id = c.id) FROM collection c ORDER BY 1",
        ),
        # Row ids aside: the order rows are written in is no part of the result.
        "lists": sql(
            db,
            "SELECT l.local_identifier, l.type, l.subtype, l.title, l.start_date, l.end_date, p.local_identifier, l.children, l.by_user"
            " FROM collection_list l LEFT JOIN collection_list p ON p.id = l.parent_id ORDER BY 1",
        ),
        "assets": sql(
            db,
            "SELECT local_identifier, burst_identifier, represents_burst, burst_selection_types, place_name, place_reason,"
            " local_date, local_offset, time_zone, zone_reason FROM asset ORDER BY 1",
        ),
    }


def copy(db, to):
    """The catalog file alone, in place of `to` and its log: a command that wrote left it whole (checkpointed)."""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(to + suffix):
            os.remove(to + suffix)
    shutil.copy(db, to)


def same(a_db, b_db, where, made, names):
    """Whether the two catalogs hold the same state; else prints the first difference."""
    a, b = state(a_db), state(b_db)
    for key in a:
        if a[key] != b[key]:
            only_a, only_b = sorted(set(a[key]) - set(b[key])), sorted(set(b[key]) - set(a[key]))
            print(f"{where}: {key} differ ({names[0]} against {names[1]}) after {made}")
            print(f"  {names[0]} only: {only_a[:3]}\n  {names[1]} only: {only_b[:3]}")
            return False
    return True


def run(seed, work):
    rng = random.Random(seed)
    base = os.path.join(work, f"seed-{seed}")
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    lib, cat, whole = os.path.join(base, "library"), os.path.join(base, "catalog.sqlite"), os.path.join(base, "whole.sqlite")
    subprocess.run(["cp", "-al", args.corpus, lib], check=True)
    # The linked tree's folders are its own (its files are the corpus's: never chmod them): made writable so
    # that files can be moved in and out of them.
    subprocess.run(["find", lib, "-type", "d", "-exec", "chmod", "u+w", "{}", "+"], check=True)
    shutil.rmtree(os.path.join(lib, "facts"), ignore_errors=True)
    shoebox("ingest", lib, "--catalog", cat)

    def folders():
        return [r for r, _, _ in os.walk(lib) if r != lib]

    def files():
        return [os.path.join(r, f) for r, _, fs in os.walk(lib) for f in fs]

    changes = 0
    for k in range(args.rounds):
        made = []
        for _ in range(rng.randint(1, 3)):
            op = rng.choice(["rename", "move folder", "move", "delete", "copy", "date", "location", "trash", "restore"])
            try:
                if op == "rename":
                    d = rng.choice(folders())
                    os.rename(d, f"{d}-r{k}")
                    made.append((op, d))
                elif op == "move folder":
                    d, t = rng.choice(folders()), rng.choice(folders())
                    if t == d or t.startswith(d + "/"):
                        continue
                    os.rename(d, os.path.join(t, f"{os.path.basename(d)}-m{k}"))
                    made.append((op, d, t))
                elif op == "move":
                    f, t = rng.choice(files()), rng.choice(folders())
                    os.rename(f, os.path.join(t, f"mv{k}-{os.path.basename(f)}"))
                    made.append((op, f, t))
                elif op == "delete":
                    f = rng.choice(files())
                    os.remove(f)
                    made.append((op, f))
                elif op == "copy":
                    f, t = rng.choice(files()), rng.choice(folders())
                    shutil.copy(f, os.path.join(t, f"cp{k}-{os.path.basename(f)}"))
                    made.append((op, f, t))
                else:
                    if op == "restore":
                        ids = sql(cat, "SELECT local_identifier FROM asset WHERE trashed_at IS NOT NULL")
                    else:
                        ids = sql(cat, "SELECT local_identifier FROM asset WHERE trashed_at IS NULL")
                    if not ids:
                        continue
                    a = rng.choice(ids)
                    change = {
                        "date": [f"--creation-date=20{rng.randint(0, 23):02d}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T1{rng.randint(0, 9)}:00:00+0{rng.randint(0, 9)}:00"],
                        "location": [f"--location={rng.uniform(-60, 60):.2f},{rng.uniform(-170, 170):.2f}"],
                        "trash": ["--delete"],
                        "restore": ["--restore"],
                    }[op]
                    made.append((op, a, shoebox("change", *change, a, "--catalog", cat).returncode))
            except (IndexError, OSError) as e:  # an empty pick, or a read-only folder of the corpus
                made.append((op, "skipped", str(e)[:60]))
        changes += sum(1 for m in made if m[1] != "skipped")
        shoebox("ingest", lib, "--catalog", cat)
        # The copy is organized whole by the next ingest (nothing changed on disk): its record of a complete
        # organize is taken away, as an organize stopped half-way leaves it.
        copy(cat, whole)
        sql(whole, "DELETE FROM meta WHERE key = 'organize_inputs'")
        shoebox("ingest", lib, "--catalog", whole)
        if not same(cat, whole, f"seed {seed}, round {k}", made, ("incremental", "whole")):
            return False
        if args.rederive:
            # And the assets derived again from the stored facts (`rederive`) are the ones the ingests made.
            copy(cat, whole)
            shoebox("rederive", "--catalog", whole)
            if not same(cat, whole, f"seed {seed}, round {k}", made, ("ingests", "rederive")):
                return False
    print(f"seed {seed}: {args.rounds} rounds, {changes} changes, incremental = whole")
    return True


work = args.work or __import__("tempfile").mkdtemp(prefix="organize-differential.")
try:
    ok = all([run(s, work) for s in args.seeds])
finally:
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
sys.exit(0 if ok else 2)
