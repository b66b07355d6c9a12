"""What each process of a benchmarked build used (CPU, peak RSS), how long
each shard task ran as the Prefect API recorded it, and the schedule those
shard times give on more workers: bench_build.py's measuring side."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import psutil

BIN = Path(sys.executable).parent


@dataclasses.dataclass
class Usage:
    """What one process of a build used, as last sampled."""

    role: str  # flow | worker | other
    cpu: float = 0.0
    peak_rss: int = 0


def tree_cpu(pid: int) -> float:
    """CPU seconds used so far by a process and its children (the Prefect
    server the builds share runs on the same two cores)."""
    total = 0.0
    root = psutil.Process(pid)
    for p in [root, *root.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            t = p.cpu_times()
            total += t.user + t.system
    return total


def run_build(
    repo: Path, env: dict[str, str], extra: list[str]
) -> tuple[dict, float, int, dict[int, Usage]]:
    """(summary, wall seconds, peak RSS of one worker process in bytes, what
    every process of the build used, by pid)."""
    cmd = [str(BIN / "freshindex"), "--repo", str(repo), "--json", "build", *extra]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    root = psutil.Process(proc.pid)
    usage: dict[int, Usage] = {proc.pid: Usage("flow")}
    done = threading.Event()

    def note(p: psutil.Process, role: str) -> None:
        with p.oneshot():
            u = usage.setdefault(p.pid, Usage(role))
            times = p.cpu_times()
            u.cpu = max(u.cpu, times.user + times.system)
            u.peak_rss = max(u.peak_rss, p.memory_info().rss)

    def sample() -> None:
        while not done.is_set():
            try:
                note(root, "flow")
                for child in root.children(recursive=True):
                    try:
                        cmdline = " ".join(child.cmdline())
                        worker = "multiprocessing" in cmdline or "spawn" in cmdline
                        note(child, "worker" if worker else "other")
                    except psutil.Error:
                        continue
            except psutil.Error:
                pass
            time.sleep(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, _ = proc.communicate()
    wall = time.perf_counter() - t0
    done.set()
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"build failed with exit {proc.returncode}")
    peak = max((u.peak_rss for u in usage.values() if u.role == "worker"), default=0)
    return json.loads(out), wall, peak, usage


def shard_seconds(api: str) -> list[float]:
    """How long each shard task of the latest build ran, from the Prefect API."""
    body = json.dumps(
        {"task_runs": {"name": {"like_": "parse-shard"}}, "sort": "END_TIME_DESC", "limit": 200}
    ).encode()
    request = urllib.request.Request(
        f"{api}/task_runs/filter", body, {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        runs = json.load(response)
    flow = runs[0]["flow_run_id"] if runs else None
    return [float(r["total_run_time"]) for r in runs if r["flow_run_id"] == flow]


def makespan(durations: list[float], workers: int) -> float:
    """Longest-first list scheduling of the shard tasks on ``workers``
    (Dask hands a free worker the next task; longest first is its best case)."""
    ends = [0.0] * min(workers, max(1, len(durations)))
    for d in sorted(durations, reverse=True):
        i = ends.index(min(ends))
        ends[i] += d
    return max(ends)


def process_rows(
    usage: dict[int, Usage], shards: list[float], wall: float, startup: float, limit: float
) -> list[tuple[str, str]]:
    """CPU and memory per process, shard skew, and the simulated schedules."""
    workers = [u for u in usage.values() if u.role == "worker"]
    flow = [u for u in usage.values() if u.role == "flow"]
    rows = [
        ("build wall without the fixed start-up / parse limit", f"{(wall - startup) / limit:.2f}"),
        ("CPU, flow process (s)", f"{sum(u.cpu for u in flow):.0f}"),
        ("CPU, Dask workers (s, each)", " / ".join(f"{u.cpu:.0f}" for u in workers) or "-"),
        ("peak RSS, flow process (MB)", f"{max((u.peak_rss for u in flow), default=0) / 1e6:.0f}"),
        (
            "peak RSS, Dask workers (MB, each)",
            " / ".join(f"{u.peak_rss / 1e6:.0f}" for u in workers) or "-",
        ),
    ]
    if shards:
        mean = statistics.mean(shards)
        rows += [
            ("shard tasks timed", f"{len(shards)}"),
            (
                "shard task s: min / median / max (max / mean)",
                f"{min(shards):.1f} / {statistics.median(shards):.1f} / {max(shards):.1f} "
                f"({max(shards) / mean:.2f})",
            ),
            ("shard task s, total", f"{sum(shards):.0f}"),
        ]
        for n in (2, 32, 128, 1000):
            rows.append((f"simulated shard phase on {n} workers (s)", f"{makespan(shards, n):.1f}"))
    return rows
