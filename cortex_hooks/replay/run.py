"""A replay's run: the transcripts read and judged, on every core when there are many, each within
its deadline; memory stays flat (a transcript is read, judged and reduced to its tally)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed

from cortex_hooks.frozen import Record
from cortex_hooks.guard import catch_outcomes as outcomes
from cortex_hooks.guard.call import Call
from cortex_hooks.replay.tally import Tally
from cortex_hooks.replay.worker_rules import Judged, Rules
from cortex_hooks.transcripts import call_log as reader

FILE_SECONDS = 30.0  # what one transcript may take to read and judge
PARALLEL_FROM = 8  # transcripts: fewer are read in this process (a pool costs more to start)
MAX_WORKERS = 4

Progress = Callable[[int, int, int], None]  # (transcripts done, of, calls read)
Each = Callable[["reader.Call", Judged], None]  # every call judged, in order (one process)


class Setting(Record):
    """What every transcript of one replay is read and judged with: the databases of the rules
    ((scope, path), project first), whether the built-in protection judges too, the first instant
    replayed, the grams a line must hold one of to be worth parsing, and whether what the agent
    did after each catch is worked out (every call is read then: no grams)."""

    databases: list[tuple[str, str]]
    protection: bool
    since: str | None
    grams: reader.Grams | None
    outcomes: bool = False


_state: dict[str, tuple[Rules, Setting]] = {}  # this process's rules, opened once (a worker's at its start)


def replay(
    setting: Setting, files: list[str], *, progress: Progress | None = None, each: Each | None = None
) -> Tally:
    """Every call of these transcripts judged under the setting's rules; the counts merged.
    `each` sees every call and its judgment (the replay then runs in this process alone)."""
    total = Tally()
    workers = min(MAX_WORKERS, os.cpu_count() or 1, max(len(files) // PARALLEL_FROM, 1))
    if workers > 1 and each is None:
        try:
            _in_pool(setting, files, workers, total, progress)
            return total
        except (OSError, ImportError):  # no process pool here (no /dev/shm, say): one process
            total = Tally()
    _start(setting)
    try:
        for done, path in enumerate(files, 1):
            total.merge(_one(path, each))
            if progress is not None:
                progress(done, len(files), total.calls)
    finally:
        _stop()
    return total


def _in_pool(
    setting: Setting, files: list[str], workers: int, total: Tally, progress: Progress | None
) -> None:
    import multiprocessing  # noqa: PLC0415 (only for a replay across processes)

    size = max(1, min(16, len(files) // (workers * 8)))
    batches = [files[start : start + size] for start in range(0, len(files), size)]
    # fork: a worker starts with the modules already imported (spawn would import them again)
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_start, initargs=(setting,)) as pool:
        # (a worker's connections close with its process)
        futures = {pool.submit(_batch, batch): len(batch) for batch in batches}
        done = 0
        try:
            for future in as_completed(futures):
                total.merge(future.result())
                done += futures[future]
                if progress is not None:
                    progress(done, len(files), total.calls)
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise


def _start(setting: Setting) -> None:
    _state["rules"] = (Rules(setting.databases, setting.protection), setting)


def _stop() -> None:
    found = _state.pop("rules", None)
    if found is not None:
        found[0].close()


def _batch(paths: list[str]) -> Tally:
    merged = Tally()
    for path in paths:
        merged.merge(_one(path))
    return merged


def _one(path: str, each: Each | None = None) -> Tally:
    """One transcript read and judged, within its deadline; a file that cannot be read is named."""
    rules, setting = _state["rules"]
    tally = Tally()
    tally.transcripts = 1
    deadline = time.monotonic() + FILE_SECONDS
    watch = outcomes.Watch() if setting.outcomes else None
    try:
        left = reader.Left()
        found = reader.read(
            path, deadline=deadline, since=setting.since, grams=setting.grams, left=left, results=bool(watch)
        )
        try:
            for item in found:
                if isinstance(item, reader.Result):
                    if watch is not None:
                        result = outcomes.result_of(item.error, item.text)
                        watch.see(outcomes.Seen(item.id, result=result, offset=item.offset))
                    continue
                judged = rules.judge(item)
                tally.count(item, judged)
                if each is not None:
                    each(item, judged)
                if watch is not None:
                    _watched(watch, item, judged)
        finally:
            tally.calls += left.passed
            tally.answers["allow"] += left.passed
            tally.problems += left.problems
            if watch is not None:
                tally.settle(watch)
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        tally.problems.append((path, f"skipped ({reason})"))
        tally.transcripts = 0
    tally.seal()
    return tally


def _watched(watch: outcomes.Watch, call: reader.Call, judged: Judged) -> None:
    """A judged call seen by the outcomes: a later call of the catches before it, then its own
    catches (as the hook records them: hooks.record)."""
    asked = judged.call if judged.call is not None else Call(call.tool, call.input, call.cwd)
    watch.see(outcomes.Seen(call.id, call=asked, offset=call.offset, source=call))
    for key, answer, rule, jobs in judged.caught:
        watch.add(outcomes.Catch(answer, call.id, jobs, rule, start=call.offset, key=key))
