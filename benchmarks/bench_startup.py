"""The startup benchmark: `tracker --help` and `tracker query "select 1"` next to a bare
`python -c pass`."""

from __future__ import annotations

from harness import Harness
from whole_process import repeat, run


def bench_startup(h: Harness) -> None:
    h.say("startup")
    db = h.fresh_db(h.work / "startup.db")
    floor = repeat(h.repeat, lambda: run([h.python, "-c", "pass"], env=h.env()))
    base = f"python -c pass {floor.wall:.3f} s"
    for label, args in (("tracker --help", ["--help"]), ('query "select 1"', None)):
        cmd = [str(h.tracker), *args] if args else h.tracker_cmd(db, "query", "select 1")
        sample = repeat(h.repeat, lambda cmd=cmd: run(cmd, env=h.env()))
        h.add(
            "startup",
            f"{label} wall",
            f"{sample.wall:.3f} s",
            base,
            "< 0.5 s",
            sample.wall < 0.5,
        )
