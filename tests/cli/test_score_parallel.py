"""``momkde score`` by partitions: byte ranges cut at record ends, the second pass on local
processes (--jobs) or Dask workers (--scheduler) with the same output as one process, its
failures as one line, and the progress lines (--quiet silences them)."""

import io
import os
import re
import socket
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import momkde_core._progress as progress
import momkde_core.cli._score as cli
from momkde_core.cli import main
from momkde_core.cli._partitions import open_source, scan_parts
from momkde_core.io import sniff_csv_file


def run_score(*argv):
    try:
        return main(["score", *map(str, argv)])
    except SystemExit as exit_:  # argparse's own errors
        return exit_.code


def _error_line(err: str) -> str:
    """The one error line of a run's stderr (progress lines may come before it)."""
    lines = err.strip().splitlines()
    errors = [line for line in lines if re.match(r"momkde( score)?: error: ", line)]
    assert len(errors) == 1 and lines[-1] == errors[0] and "Traceback" not in err, err
    return errors[0]


# --- partitions -------------------------------------------------------------------------------


def _parts(path: Path, chunksize: int):
    source = open_source(path, sniff_csv_file(path))
    names = source.names or tuple(pd.read_csv(path, nrows=0, encoding="utf-16").columns)
    return source, list(scan_parts(source, chunksize, dtype=dict.fromkeys(names, str)))


def _assert_whole(path: Path, parts, **read):
    rows = pd.concat([rows for _, rows in parts], ignore_index=True)
    whole = pd.read_csv(path, dtype=str, **read)
    pd.testing.assert_frame_equal(rows, whole)
    assert [part.first_row for part, _ in parts] == list(
        np.cumsum([0] + [len(r) for _, r in parts])[:-1]
    )


TRICKY = (
    b"id,text,x\r\n"
    b'1,"a\r\nb",1.5\r\n'  # a quoted CRLF
    b"2,plain,2.5\r\n"
    b"\r\n"  # a blank line
    b'3,"say ""hi""\nthere, twice",3.5\n'  # doubled quotes, a separator and a LF in quotes
    b"4,x,4.5\r"  # a lone CR ends this line
    b'5,"",5.5\n'
    b"6,last,6.5"  # no line end at the end
)


@pytest.mark.parametrize("chunksize", [1, 2, 3, 100])
def test_byte_ranges_cut_only_at_record_ends(tmp_path, chunksize):
    path = tmp_path / "t.csv"
    path.write_bytes(TRICKY)
    source, parts = _parts(path, chunksize)
    assert source.ranged and source.names == ("id", "text", "x")
    _assert_whole(path, parts)
    # contiguous ranges from the header's end to the end of the file
    assert parts[0][0].start == source.header_end == len(b"id,text,x\r\n")
    assert [p.end for p, _ in parts[:-1]] == [p.start for p, _ in parts[1:]]
    assert parts[-1][0].end == len(TRICKY)
    assert all(len(rows) <= chunksize for _, rows in parts)


def test_a_stray_quote_joins_the_ranges_it_misleads(tmp_path):
    """A quote inside an unquoted field (5'10") flips the count of quotes: the cut after
    '"multi' falls inside a quoted field, pandas refuses that range, and it is joined with
    the next: the rows are still the file's."""
    path = tmp_path / "s.csv"
    path.write_text('id,h,note\n1,5\'10",ok\n2,x,"multi\nline"\n3,y,z\n4,w,v\n')
    source, parts = _parts(path, 1)
    assert source.ranged
    _assert_whole(path, parts)


def test_utf16_files_are_read_by_the_client(tmp_path):
    path = tmp_path / "u.csv"
    pd.DataFrame({"a": range(7), "b": list("abcdefg")}).to_csv(path, index=False, encoding="utf-16")
    source, parts = _parts(path, 3)
    assert not source.ranged
    assert [len(rows) for _, rows in parts] == [3, 3, 1]
    _assert_whole(path, parts, encoding="utf-16")


def test_a_parse_error_names_the_files_line(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("a,b\n" + "1,2\n" * 10 + "1,2,3\n" + "3,4\n" * 5)
    with pytest.raises(pd.errors.ParserError, match="Expected 2 fields in line 12, saw 3"):
        pd.read_csv(path)
    assert run_score(path, "--chunksize", "4", "--quiet", "--out", tmp_path / "o.csv") == 2
    assert "Expected 2 fields in line 12, saw 3" in _error_line(capsys.readouterr().err)


def test_blank_lines_and_a_blank_first_range_are_no_rows(tmp_path, capsys):
    rng = np.random.default_rng(0)
    lines = [f"{x:.6f},{y:.6f}" for x, y in rng.normal(size=(40, 2))]
    path = tmp_path / "b.csv"
    path.write_text("x,y\n\n\n" + "\n".join(lines[:20]) + "\n\n" + "\n".join(lines[20:]) + "\n\n")
    outs = []
    for chunksize in ("2", "1000"):
        out = tmp_path / f"o{chunksize}.csv"
        argv = [path, "--method", "kde", "--chunksize", chunksize, "--quiet", "--out", out]
        assert run_score(*argv) == 0
        outs.append(pd.read_csv(out))
    assert len(outs[0]) == len(outs[1]) == 40
    pd.testing.assert_frame_equal(outs[0][["x", "y"]], outs[1][["x", "y"]])


# --- the second pass on workers ------------------------------------------------------------


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """600 rows: two numeric columns (5 % outliers), an integer id with a gap in one
    partition, and text with quotes, separators, line ends in quotes and a formula."""
    rng = np.random.default_rng(7)
    n = 600
    X = rng.normal(size=(n, 2))
    X[:30] = rng.uniform(-6, 6, size=(30, 2))
    ids = pd.array(range(n), dtype="Int64")
    ids[250] = pd.NA
    notes = np.array(["ok", 'say "hi"', "two\nlines, here", "=1+1"], dtype=object)
    df = pd.DataFrame({"id": ids, "x": X[:, 0], "y": X[:, 1], "note": notes[np.arange(n) % 4]})
    path = tmp_path_factory.mktemp("big") / "big.csv"
    df.to_csv(path, index=False)
    return path


ARGS = ["--columns", "x", "y", "--method", "kde", "mom_kde", "--fit-rows", "200"]
ARGS += ["--chunksize", "100", "--seed", "3", "--quiet"]


@pytest.fixture(scope="module")
def single(big, tmp_path_factory):
    """The bytes of the run in one process."""
    out = tmp_path_factory.mktemp("single") / "scored.csv"
    assert run_score(big, *ARGS, "--out", out) == 0
    return out.read_bytes()


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=False,
        protocol="tcp",
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        yield cluster


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_single_process_output_is_whole(big, single):
    scored = pd.read_csv(io.BytesIO(single))
    assert len(scored) == 600 and scored["note"].iloc[2] == "two\nlines, here"
    assert scored["note"].iloc[3] == "'=1+1"  # escaped
    assert (scored["is_outlier_mom_kde"] == (scored["score_mom_kde"] < 0)).all()


def test_jobs_2_writes_the_same_bytes_and_reports_each_partition(
    big, single, tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(progress, "LOG_SECONDS", 0.0)
    out = tmp_path / "scored.csv"
    argv = [a for a in ARGS if a != "--quiet"]
    assert run_score(big, *argv, "--jobs", "2", "--out", out) == 0
    assert out.read_bytes() == single
    assert _listing(tmp_path) == ["scored.csv"]  # no part file, no temporary file
    lines = capsys.readouterr().err.strip().splitlines()
    where = "in 6 partition(s) of at most 100 rows on 2 local processes ..."
    assert f"momkde: scoring 600 rows {where}" in lines
    done = [line for line in lines if line.startswith("momkde: scoring: ")]
    assert [line.split(" rows")[0] for line in done] == [
        *(f"momkde: scoring: {k} of 600" for k in range(100, 700, 100)),
        "momkde: scoring: 600",  # the phase's last line
    ]


def test_dask_workers_write_the_same_bytes(big, single, cluster, tmp_path, capsys):
    out = tmp_path / "scored.csv"
    assert run_score(big, *ARGS, "--scheduler", cluster.scheduler_address, "--out", out) == 0
    assert out.read_bytes() == single
    assert _listing(tmp_path) == ["scored.csv"]
    assert "scored 600 rows on 2 column(s), fitted on 200" in capsys.readouterr().err


def test_a_file_read_by_the_client_gives_the_same_output_on_workers(tmp_path, cluster):
    """UTF-16: the client reads the partitions and ships their rows."""
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"x": rng.normal(size=300), "y": rng.normal(size=300), "t": "é"})
    path = tmp_path / "u16.csv"
    df.to_csv(path, index=False, encoding="utf-16")
    argv = [path, "--method", "kde", "--chunksize", "70", "--fit-rows", "100", "--quiet"]
    outputs = {}
    for how, extra in {
        "single": [],
        "jobs": ["--jobs", "2"],
        "dask": ["--scheduler", cluster.scheduler_address],
    }.items():
        outputs[how] = tmp_path / f"{how}.csv"
        assert run_score(*argv, *extra, "--out", outputs[how]) == 0
    assert outputs["jobs"].read_bytes() == outputs["single"].read_bytes()
    assert outputs["dask"].read_bytes() == outputs["single"].read_bytes()
    assert len(pd.read_csv(outputs["single"])) == 300


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _forbid_reading(monkeypatch):
    def read(*args, **kwargs):
        raise AssertionError("the data was read")

    monkeypatch.setattr(cli, "sniff_csv_file", read)


def test_an_unreachable_scheduler_is_one_line_before_reading(big, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cli, "SCHEDULER_TIMEOUT", 0.5)
    _forbid_reading(monkeypatch)
    address = f"tcp://127.0.0.1:{_free_port()}"
    argv = [big, *ARGS, "--scheduler", address, "--out", tmp_path / "o.csv"]
    assert run_score(*argv) == 2
    line = _error_line(capsys.readouterr().err)
    assert line.startswith(f"momkde: error: cannot reach the Dask scheduler at {address}")
    assert _listing(tmp_path) == []


def test_workers_that_do_not_see_the_files_are_refused_before_reading(
    big, cluster, tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(cli, "worker_problem", lambda data, size, folder: f"cannot see {data}")
    _forbid_reading(monkeypatch)
    argv = [big, *ARGS, "--scheduler", cluster.scheduler_address, "--out", tmp_path / "o.csv"]
    assert run_score(*argv) == 2
    line = _error_line(capsys.readouterr().err)
    assert f"cannot see {big.absolute()}: the workers need this machine's files" in line
    assert _listing(tmp_path) == []


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--jobs", "2", "--scheduler", "tcp://127.0.0.1:8786"], "not allowed with argument"),
        (["--jobs", "0"], "--jobs: must be >= 1 or -1 (all cores), got 0"),
        (["--scheduler", "nohost"], "--scheduler 'nohost' is not a Dask scheduler address"),
    ],
)
def test_bad_parallel_arguments_exit_2_before_reading(
    big, tmp_path, capsys, monkeypatch, argv, message
):
    _forbid_reading(monkeypatch)
    assert run_score(big, *ARGS, *argv, "--out", tmp_path / "o.csv") == 2
    assert message in _error_line(capsys.readouterr().err)
    assert _listing(tmp_path) == []


def test_scheduler_without_dask_distributed_says_how_to_install(big, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    _forbid_reading(monkeypatch)
    argv = [big, *ARGS, "--scheduler", "tcp://127.0.0.1:8786", "--out", tmp_path / "o.csv"]
    assert run_score(*argv) == 2
    assert "--scheduler needs dask.distributed: pip install" in _error_line(capsys.readouterr().err)


def _spoil_after_the_fit(monkeypatch, path: Path, row: int):
    """After the fit, write text into ``row``'s x (same size, same time): the file looks
    unchanged to the client, and the worker that reads that partition fails."""
    fit = cli._fit_detectors

    def fit_then_spoil(*args, **kwargs):
        fit(*args, **kwargs)
        stat = path.stat()
        lines = path.read_bytes().split(b"\n")
        target = next(i for i, line in enumerate(lines) if line.startswith(f"{row},".encode()))
        fields = lines[target].split(b",")
        fields[1] = b"x" * len(fields[1])
        lines[target] = b",".join(fields)
        path.write_bytes(b"\n".join(lines))
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))

    monkeypatch.setattr(cli, "_fit_detectors", fit_then_spoil)


@pytest.mark.parametrize("where", ["jobs", "dask"])
def test_a_failed_partition_is_one_line_exit_1_and_leaves_no_file(
    big, tmp_path, capsys, monkeypatch, request, where
):
    data = tmp_path / "data.csv"
    data.write_bytes(big.read_bytes())
    out = tmp_path / "scored.csv"
    out.write_text("the previous result\n")
    _spoil_after_the_fit(monkeypatch, data, row=420)
    if where == "jobs":
        extra = ["--jobs", "2"]
    else:
        extra = ["--scheduler", request.getfixturevalue("cluster").scheduler_address]
    assert run_score(data, *ARGS, *extra, "--out", out) == 1
    line = _error_line(capsys.readouterr().err)
    assert line.startswith("momkde: error: partition 5 of 6 (data rows 401-500) failed: ")
    assert "ValueError" in line and line.endswith("; nothing was written")
    assert out.read_text() == "the previous result\n"
    assert _listing(tmp_path) == ["data.csv", "scored.csv"]


def test_an_interrupted_run_leaves_no_file(big, cluster, tmp_path, capsys, monkeypatch):
    write = cli.write_in_order

    def interrupt_after_the_first_part(results, *args):
        def first_then_stop():
            yield next(iter(results))
            raise KeyboardInterrupt

        return write(first_then_stop(), *args)

    monkeypatch.setattr(cli, "write_in_order", interrupt_after_the_first_part)
    argv = [big, *ARGS, "--scheduler", cluster.scheduler_address, "--out", tmp_path / "o.csv"]
    assert run_score(*argv) == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == "momkde: interrupted"
    assert _listing(tmp_path) == []


def test_a_file_changed_between_the_passes_is_refused(big, tmp_path, capsys, monkeypatch):
    data = tmp_path / "data.csv"
    data.write_bytes(big.read_bytes())
    fit = cli._fit_detectors

    def fit_then_append(*args, **kwargs):
        fit(*args, **kwargs)
        with open(data, "a") as fh:
            fh.write("600,0.1,0.2,ok\n")

    monkeypatch.setattr(cli, "_fit_detectors", fit_then_append)
    assert run_score(data, *ARGS, "--jobs", "2", "--out", tmp_path / "o.csv") == 2
    assert "the file changed since it was read" in _error_line(capsys.readouterr().err)
    assert _listing(tmp_path) == ["data.csv"]


# --- progress ----------------------------------------------------------------------------------


def test_progress_lines_on_a_stream_that_is_not_a_terminal(big, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(progress, "LOG_SECONDS", 0.0)
    argv = [a for a in ARGS if a != "--quiet"]
    assert run_score(big, *argv, "--out", tmp_path / "o.csv") == 0
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[0] == f"momkde: reading {big} ..."  # at once
    assert any(line.startswith("momkde: reading: 600 rows in ") for line in lines)
    for method in ("kde", "mom_kde"):
        assert f"momkde: fitting {method} on 200 rows ..." in lines
        assert any(line.startswith(f"momkde: {method} fitted in ") for line in lines)
    assert "momkde: scoring 600 rows in 6 partition(s) of at most 100 rows ..." in lines
    scoring = [line for line in lines if line.startswith("momkde: scoring: ")]
    assert "momkde: scoring: 100 of 600 rows (17 %), " in scoring[0]  # one per partition
    assert len(scoring) == 6 + 1 and all(line.endswith(" rows/s") for line in scoring)
    assert lines[-1].startswith("scored 600 rows on 2 column(s)")


def test_quiet_silences_the_progress(big, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(progress, "LOG_SECONDS", 0.0)
    assert run_score(big, *ARGS, "--out", tmp_path / "o.csv") == 0  # ARGS has --quiet
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("scored 600 rows")


def test_progress_helpers(monkeypatch):
    stream = io.StringIO()
    monkeypatch.setattr(progress, "LOG_SECONDS", 0.0)
    progress.note("hello", stream=stream)
    progress.note("hidden", enabled=False, stream=stream)
    with progress.phase("fitting x on 5 rows", "x fitted", stream=stream):
        pass
    with pytest.raises(RuntimeError), progress.phase("failing", "not written", stream=stream):
        raise RuntimeError
    with progress.Progress("scoring", "rows", total=4, stream=stream, summary=True) as bar:
        bar.update(2)
        bar.update(2)
    lines = stream.getvalue().splitlines()
    assert lines[:2] == ["momkde: hello", "momkde: fitting x on 5 rows ..."]
    assert re.fullmatch(r"momkde: x fitted in \d+\.\d s", lines[2])
    assert lines[3] == "momkde: failing ..."  # and no end line: it failed
    assert lines[4].startswith("momkde: scoring: 2 of 4 rows (50 %), ")
    assert lines[5].startswith("momkde: scoring: 4 of 4 rows (100 %), ")
    assert lines[6].startswith("momkde: scoring: 4 rows in ") and lines[6].endswith(" rows/s")
    assert len(lines) == 7
