"""Files cpoker writes are replaced atomically; files it reads fail clearly.

The concurrency test runs real processes: two writers saving different tables
to one path while a reader loads it, and a CLI run writing ``--out`` over a
file a reader keeps opening.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from cpoker import OptionError, PolicyTables, cli
from cpoker.system.files import atomic_write, check_writable, read_text

ROOT = Path(__file__).resolve().parents[2]

WRITER = textwrap.dedent("""
    import sys
    import numpy as np
    from cpoker import PolicyTables
    from cpoker.strategies.policy import default_tables

    path, which, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    shipped = default_tables()
    flat = PolicyTables(np.full_like(shipped.distribution, 1 / shipped.distribution.shape[1]), 1, 1, ())
    tables = (shipped, flat)[which]
    for _ in range(count):
        tables.save(path)
""")

READER = textwrap.dedent("""
    import sys, time
    from cpoker import PolicyTables

    path, count = sys.argv[1], int(sys.argv[2])
    failures, seeds = 0, set()
    for _ in range(count):
        try:
            seeds.add(PolicyTables.load(path).seed)
        except Exception as error:
            failures += 1
            print(type(error).__name__, error, file=sys.stderr)
    print(failures, sorted(seeds))
""")


def test_readers_never_see_half_written_tables(tmp_path):
    path = tmp_path / "tables.npz"
    PolicyTables(np.full((3, 7917), 1 / 7917), 1, 1, ()).save(path)
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(which), "150"], cwd=ROOT)
               for which in (0, 1)]
    reader = subprocess.run([sys.executable, "-c", READER, str(path), "400"], capture_output=True, text=True,
                            cwd=ROOT, timeout=300)
    for writer in writers:
        assert writer.wait(timeout=300) == 0
    failures, seeds = reader.stdout.split(" ", 1)
    assert reader.returncode == 0 and failures == "0", reader.stderr[-500:]
    assert seeds.strip() in ("[1]", "[1, 2026]", "[2026]")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary files left


def test_cli_out_is_replaced_whole_while_a_reader_watches(tmp_path):
    out = tmp_path / "result.json"
    out.write_text(json.dumps({"previous": True}))
    watcher = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import json, time
        bad = 0
        end = time.monotonic() + 60
        while time.monotonic() < end:
            data = json.loads(open({str(out)!r}).read())   # fails on a half-written file
            if "previous" not in data:
                break
        print("seen new")
    """)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    run = subprocess.run([sys.executable, "-m", "cpoker", "simulate", "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac",
                          "--samples", "3000", "--seed", "1", "--out", str(out)], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    stdout, stderr = watcher.communicate(timeout=120)
    assert run.returncode == 0 and watcher.returncode == 0 and "seen new" in stdout, stderr
    assert json.loads(out.read_text())["samples"] == 3000


def test_atomic_write_errors_name_the_problem_and_keep_the_old_file(tmp_path):
    target = tmp_path / "keep.json"
    target.write_text("old")
    with pytest.raises(OptionError, match="does not exist"):
        check_writable(tmp_path / "missing" / "x.json")
    with pytest.raises(OptionError, match="it is a directory"):
        check_writable(tmp_path)
    with pytest.raises(OptionError, match="cannot write"):
        atomic_write(tmp_path / "missing" / "x.json", b"data")
    with pytest.raises(OptionError, match="it is a directory"):
        atomic_write(tmp_path, b"data")
    with pytest.raises(OptionError, match="cannot write /proc/"):
        atomic_write("/proc/cpoker-test.json", b"data")
    atomic_write(target, b"new")
    assert target.read_text() == "new" and len(list(tmp_path.iterdir())) == 1


def test_outputs_never_replace_a_special_file_and_write_through_a_link(tmp_path, capsys):
    """A FIFO (like a device) would be replaced by a regular file: refused; a link keeps pointing at the new file."""
    import stat

    from cpoker import cli

    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    for attempt in (lambda: check_writable(fifo), lambda: atomic_write(fifo, b"data")):
        with pytest.raises(OptionError, match="it is not a regular file"):
            attempt()
    assert cli.main(["simulate", "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac", "--samples", "50", "--seed", "1",
                     "--out", str(fifo)]) == 2
    assert "pipe.json: it is not a regular file" in capsys.readouterr().err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still the FIFO
    target, link = tmp_path / "real.json", tmp_path / "link.json"
    target.write_text("old")
    link.symlink_to(target)
    assert check_writable(link) == link
    atomic_write(link, b"new")
    assert link.is_symlink() and target.read_text() == "new" and os.readlink(link) == str(target)
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "later.json")
    atomic_write(dangling, b"made")
    assert dangling.is_symlink() and (tmp_path / "later.json").read_text() == "made"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_reading_refuses_binary_latin1_huge_and_missing_files(tmp_path):
    (tmp_path / "latin1.toml").write_bytes("scoring = \"pagat\" # caf\xe9".encode("latin-1"))
    (tmp_path / "binary").write_bytes(bytes(range(256)))
    huge = tmp_path / "huge.json"
    with huge.open("wb") as stream:
        stream.seek(20 * 2**20)
        stream.write(b"\0")
    with pytest.raises(OptionError, match="is not UTF-8 text"):
        read_text(tmp_path / "latin1.toml", "rules file")
    with pytest.raises(OptionError, match="is not UTF-8 text"):
        read_text(tmp_path / "binary", "rules file")
    with pytest.raises(OptionError, match="larger than 16 MiB"):
        read_text(huge, "deal file")
    with pytest.raises(OptionError, match="No such file"):
        read_text(tmp_path / "nope", "deal file")
    with pytest.raises(OptionError, match="it is a directory"):
        read_text(tmp_path, "deal file")


SMALL_READS = textwrap.dedent("""
    import resource, sys
    from cpoker import OptionError, PolicyTables
    from cpoker.system.files import read_text
    from cpoker.strategies.policy import shipped_tables_path

    size = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
    resource.setrlimit(resource.RLIMIT_AS, (size + 24 * 2**20, resource.RLIM_INFINITY))
    for preset in ("pagat", "1-6", "2-4", "seed001-royalties"):  # each read capped at 64 MiB
        PolicyTables.load(shipped_tables_path(preset))
    print(read_text(sys.argv[1], "rules file"))  # capped at 16 MiB
    try:
        read_text(sys.argv[2], "deal file")
    except OptionError as error:
        print(error)
""")


def test_reading_a_small_file_takes_memory_for_its_size_not_for_the_cap(tmp_path):
    """A real process whose address space is limited to 24 MiB more than it holds: the shipped tables files and a
    rules file load, and a 20 MiB file is refused by its size (each read had first allocated its cap -- 64 MiB for a
    0.4 MB tables file -- and failed here with a bare MemoryError)."""
    (tmp_path / "house.toml").write_text('scoring = "pagat"')
    with (tmp_path / "huge.json").open("wb") as stream:
        stream.seek(20 * 2**20)
        stream.write(b"\0")
    result = subprocess.run([sys.executable, "-c", SMALL_READS, str(tmp_path / "house.toml"),
                             str(tmp_path / "huge.json")], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.splitlines() == ['scoring = "pagat"',
                                          f"deal file {tmp_path / 'huge.json'} is larger than 16 MiB; is it the "
                                          "right file?"]


TIGHT_LOADS = textwrap.dedent("""
    import resource, sys
    from cpoker import OptionError, PolicyTables
    from cpoker.game import lookup_tables as tables

    def load(name, spare):
        size = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size + spare, resource.RLIM_INFINITY))
        try:
            if name == "lookup":
                tables.lookup_tables.cache_clear()
                tables.lookup_tables()
            else:
                PolicyTables.load(sys.argv[1])
            return "loaded"
        except MemoryError:
            return "MemoryError"
        except Exception as error:
            return f"{type(error).__name__}: {error}"
        finally:
            resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))

    for name, spare in (("lookup", 0), ("lookup", 8 * 2**20), ("large", 16 * 2**20), ("large", 256 * 2**20)):
        print(name, spare // 2**20, load(name, spare))
""")


def test_a_file_read_without_the_memory_for_it_is_a_memory_error_not_a_damaged_file(tmp_path):
    """A real process loads the lookup tables with no address space to spare, then with 8 MiB (a fixed malloc
    threshold sends every allocation over 128 KiB to new address space): a MemoryError, then the tables.  A tables
    file whose distribution is 40 MB of zeros (40 KB compressed; not ours by its shape): with 16 MiB to spare a
    MemoryError, with 256 MiB refused as not a cpoker tables file.  Before, the lookup tables' MemoryError read as
    a damaged install ("reinstall cpoker"), and the large file's as "not a cpoker tables file (MemoryError...)"."""
    large = tmp_path / "large.npz"
    np.savez_compressed(large, distribution=np.zeros(5_000_000),
                        meta=np.array('{"hands": 1, "seed": 1, "history": []}'))
    assert large.stat().st_size < 2**20
    result = subprocess.run([sys.executable, "-c", TIGHT_LOADS, str(large)], capture_output=True, text=True,
                            timeout=300, env={**os.environ, "MALLOC_MMAP_THRESHOLD_": "131072"})
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    assert lines[:3] == ["lookup 0 MemoryError", "lookup 8 loaded", "large 16 MemoryError"], result.stdout
    assert lines[3].startswith(f"large 256 OptionError: {large} is not a cpoker tables file"), result.stdout


def test_tables_files_that_are_not_ours_are_refused(tmp_path):
    (tmp_path / "text.npz").write_text("hello")
    np.savez(tmp_path / "wrong.npz", distribution=np.ones((2, 3)), meta=np.array('{"hands": 1, "seed": 1, '
                                                                              '"history": []}'))
    for name, message in (("text.npz", "not a cpoker tables file: not an .npz archive"),
                          ("wrong.npz", "not a cpoker tables file"),
                          ("missing.npz", "cannot read tables file")):
        with pytest.raises(OptionError, match=message):
            PolicyTables.load(tmp_path / name)
    # a sound distribution with a history that is not ours: refused at load, never a traceback in what reads it
    flat = np.full((3, 7917), 1 / 7917)
    step = {"iteration": 1, "changed": 1.0, "values_moved": 0.5}
    for history, message in (([{"x": 1}], "iteration 1 of the tables' history is not"),
                             ([step, step], "iteration 2 of the tables' history is not"),
                             ([{**step, "changed": 2.0}], "iteration 1"),
                             ([{**step, "values_moved": float("nan")}], "iteration 1"),
                             ([{**step, "iteration": True}], "iteration 1"), (5, "not a cpoker tables file")):
        np.savez(tmp_path / "history.npz", distribution=flat,
                 meta=np.array(json.dumps({"hands": 1, "seed": 1, "history": history})))
        with pytest.raises(OptionError, match=message):
            PolicyTables.load(tmp_path / "history.npz")
        assert cli.main(["tables", "info", str(tmp_path / "history.npz")]) == 2


DAMAGES = {  # what happens to a copy of the installed package, and the line that must say so
    "lookup tables truncated": ("lookup_tables.npz", b"PK\x03\x04 truncated", "cpoker's lookup tables"),
    "lookup tables missing": ("lookup_tables.npz", None, "cpoker's lookup tables"),
    "pagat tables missing": ("policy_tables.npz", None, "cpoker's pagat policy tables are missing"),
    "pagat tables garbled": ("policy_tables.npz", b"junk", "cpoker's pagat policy tables cannot be read"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_damaged_installation_is_named_in_one_line_with_status_1(tmp_path, damage):
    """A real copy of the package with one of its data files damaged, run as a real process."""
    import shutil

    import cpoker

    name, content, message = DAMAGES[damage]
    copy = tmp_path / "cpoker"
    shutil.copytree(Path(cpoker.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    if content is None:
        (copy / "data" / name).unlink()
    else:
        (copy / "data" / name).write_bytes(content)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    result = subprocess.run([sys.executable, "-m", "cpoker", "solve", "As Ad Kc Kd Qs Jh Th 9c 7s 6d 4h 3c 2s",
                             "--samples", "20", "--seed", "1"], capture_output=True, text=True, env=env,
                            cwd=tmp_path, timeout=600)
    assert result.returncode == 1 and result.stdout == "", result.stderr[-800:]
    assert result.stderr.startswith(f"cpoker: error: {message}") and result.stderr.count("\n") == 1
    assert "reinstall cpoker" in result.stderr


def test_a_fifo_nobody_writes_to_reads_as_empty_and_a_pipe_as_usual(tmp_path):
    """Real FIFOs and a real pipe, in real processes (a hang fails the test by its timeout, not the whole run)."""
    hand = "As Ad Kc Kd Qs Jh Th 9c 7s 6d 4h 3c 2s"
    for name, argv, message in (
            ("deal.json", ["score", "--file"], "is not valid JSON"),
            ("rules.toml", ["solve", hand, "--samples", "10", "--seed", "1", "--rules"], "is empty"),
            ("t.npz", ["solve", hand, "--samples", "10", "--seed", "1", "--tables"], "is not a cpoker tables file")):
        fifo = tmp_path / name
        os.mkfifo(fifo)
        result = subprocess.run([sys.executable, "-m", "cpoker", *argv, str(fifo)], capture_output=True, text=True,
                                cwd=ROOT, timeout=120)
        assert result.returncode == 2 and message in result.stderr and result.stderr.count("\n") == 1, result.stderr
    deal = json.dumps({"players": ["2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac",
                                   "3s 3h 4d / 6c 6d 8s 5c 2d / 9c 9d Th Ts As"]})
    piped = subprocess.run([sys.executable, "-m", "cpoker", "score", "--file", "/dev/stdin", "--json"], input=deal,
                           capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert piped.returncode == 0, piped.stderr
    assert [p["result"] for p in json.loads(piped.stdout)["players"]] == [1, -1]


def test_an_empty_rules_file_is_refused_rather_than_read_as_pagat(tmp_path):
    from cpoker import Rules
    from cpoker.system.errors import RulesError

    (tmp_path / "empty.toml").write_text("  \n")
    with pytest.raises(RulesError, match="is empty"):
        Rules.from_toml(tmp_path / "empty.toml")
    (tmp_path / "comment.toml").write_text("# the base game, on purpose\n")
    assert Rules.from_toml(tmp_path / "comment.toml").scoring == "pagat"


def _namespaces_work() -> bool:
    import shutil

    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs tmpfs /mnt"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not _namespaces_work(), reason="needs unshare -rm (a private mount namespace)")
def test_a_disk_that_fills_during_the_job_loses_no_result(tmp_path):
    """A real full file system (a 64 KiB tmpfs, filled once the output was checked): the result survives."""
    full = tmp_path / "full"
    full.mkdir()
    rescue_dir = tmp_path / "tmp"
    rescue_dir.mkdir()

    def run(*argv: str) -> subprocess.CompletedProcess:
        # the output directory is checked when the job starts (an empty file fits), then filled to the last block
        command = " ".join(f"'{a}'" for a in (sys.executable, "-c", FILL_THEN_RUN, str(full), *argv))
        shell = f"mount -t tmpfs -o size=64k tmpfs {full} && exec {command}"
        env = {**os.environ, "TMPDIR": str(rescue_dir), "PYTHONPATH": str(ROOT)}
        return subprocess.run(["unshare", "-rm", "sh", "-c", shell], capture_output=True, text=True, env=env,
                              cwd=ROOT, timeout=600)

    simulated = run("simulate", "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac", "--samples", "200", "--seed", "1",
                    "--out", str(full / "r.json"))
    assert simulated.returncode == 1 and "EV" in simulated.stdout, simulated.stderr[-500:]
    assert "No space left on device; the result is printed instead" in simulated.stderr
    assert simulated.stderr.count("\n") == 1
    built = run("tables", "build", "--hands", "200", "--max-iterations", "2", "--removal-deals", "300",
                "--removal-rounds", "1", "--out", str(full / "t.npz"))
    assert built.returncode == 1 and "the tables were saved to" in built.stderr, built.stderr[-500:]
    rescued = next(rescue_dir.glob("cpoker-tables-*.npz"))
    assert PolicyTables.load(rescued).iterations == 2
    rescued.unlink()
    # checkpoints that cannot be written: reported once, and the job goes on to its result
    built = run("tables", "build", "--hands", "200", "--max-iterations", "3", "--removal-deals", "300",
                "--removal-rounds", "1", "--checkpoint", "--out",
                str(full / "t.npz"))
    assert built.returncode == 1 and built.stderr.count("cannot write the checkpoint") == 1, built.stderr[-500:]
    assert PolicyTables.load(next(rescue_dir.glob("cpoker-tables-*.npz"))).iterations == 3
    played = run("match", "table", "greedy", "--deals", "2000", "--seed", "1", "--checkpoint",
                 "--checkpoint-seconds", "0", "--out", str(full / "m.json"))
    assert played.returncode == 1 and "table vs greedy" in played.stdout, played.stderr[-500:]
    assert played.stderr.count("cannot write the checkpoint") == 1 and played.stderr.count("\n") == 2


# Runs a cpoker command with the file system of argv[1] filled once the command has checked its output path.
FILL_THEN_RUN = """
import os, sys
from cpoker import cli
from cpoker.system import files
directory, argv = sys.argv[1], sys.argv[2:]
checked = files.check_writable

def check_then_fill(path):
    result = checked(path)
    filler = os.open(os.path.join(directory, "filler"), os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(filler, b"x" * 4096):
            pass
    except OSError:  # the last block is taken
        pass
    os.close(filler)
    return result

files.check_writable = check_then_fill
sys.exit(cli.main(argv))
"""


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs Linux's /dev/full")
def test_a_result_that_cannot_be_written_to_standard_output_is_one_line_not_a_traceback():
    """`cpoker ... > FILE` on a full disk (/dev/full), and a standard output closed (`>&-`): one line on stderr,
    status 1, never a traceback, at the write or when the interpreter flushes on exit; a reader that stops early
    (`| head -1`) is not an error; a standard error closed (`2>&-`) loses nothing but the messages (the first
    one was an AttributeError that ended every command with its result unprinted)."""
    command = f"{sys.executable} -m cpoker solve 'As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s' --seed 1"
    for redirect, message in (("> /dev/full", "cannot write the result to standard output: No space left on device"),
                              (">&-", "cannot write the result: standard output is closed")):
        run = subprocess.run(["bash", "-c", f"{command} {redirect}"], capture_output=True, text=True, cwd=ROOT)
        assert (run.returncode, run.stderr) == (1, f"cpoker: error: {message}\n"), run.stderr[-2000:]
    run = subprocess.run(["bash", "-c", f"set -o pipefail; {command} | head -c 10"], capture_output=True, text=True,
                         cwd=ROOT)
    assert (run.returncode, run.stdout, run.stderr) == (0, "hand: As K", "")
    # standard error (and input) closed: the result is printed all the same; an error is its status alone
    whole = subprocess.run(["bash", "-c", command], capture_output=True, text=True, cwd=ROOT)
    run = subprocess.run(["bash", "-c", f"{command} 2>&- <&-"], capture_output=True, text=True, cwd=ROOT)
    untimed = re.compile(r"scored in [0-9.]+ s")  # the one line that differs from run to run

    assert (run.returncode, untimed.sub("", run.stdout)) == (0, untimed.sub("", whole.stdout))
    assert "non-fouling arrangements" in run.stdout
    run = subprocess.run(["bash", "-c", f"{sys.executable} -m cpoker solve 'As As' 2>&-"], capture_output=True,
                         text=True, cwd=ROOT)
    assert (run.returncode, run.stdout) == (2, "")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs Linux's /dev/full")
def test_help_or_a_version_that_cannot_be_written_is_one_line_and_status_1():
    """argparse ignores a failed write of its help (status 0, nothing said: a script saving `cpoker --help >
    FILE` on a full disk believed it had it); cpoker says so as for a result.  A reader that stops early is not
    an error."""
    for arguments in ("--help", "tables build --help", "--version"):
        run = subprocess.run(["bash", "-c", f"{sys.executable} -m cpoker {arguments} > /dev/full"],
                             capture_output=True, text=True, cwd=ROOT)
        assert (run.returncode, run.stderr) == (1, "cpoker: error: cannot write to standard output: No space left "
                                                   "on device\n"), (arguments, run.stderr[-2000:])
    run = subprocess.run(["bash", "-c", f"set -o pipefail; {sys.executable} -m cpoker --help | head -c 6"],
                         capture_output=True, text=True, cwd=ROOT)
    assert (run.returncode, run.stdout, run.stderr) == (0, "usage:", "")
    run = subprocess.run([sys.executable, "-m", "cpoker", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0 and run.stdout.startswith("usage: cpoker") and run.stderr == ""
