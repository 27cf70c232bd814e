"""`mfx run | list | statements | metrics | status | collect | plot | report | compare | audit | docs |
calibrate`: the command line's arguments, and the streams and exit status around every command.

The commands live below: `mfx.runner` runs sweeps (`run`, `audit`: plans, jobs, progress, dry run,
tallies), `mfx.commands` reads what they left (list, status, collect, plot, report, compare, …).
Imports go one way, cli → runner → commands → the rest of mfx, never back.  Whatever escapes a
command ends as one line on stderr and a non-zero exit code (2 for a user's mistake, 130 for Ctrl-C,
1 otherwise); `MFX_DEBUG=1` shows the traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import sys

import mfx
from mfx import commands, lazy, runner
from mfx import experiment as registry
from mfx.experiment import SCALES, ConfigError
from mfx.text import printable

# What loads pandas or Hydra loads when an error message first needs it (mfx.lazy): --help,
# --version and list stay fast.
results = lazy.module("mfx.results")
sweep = lazy.module("mfx.sweep")


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (the usage is one `--help` away)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="mfx",
        description="Reproduce the figures and claims of three papers on infinitely deep and wide networks.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  mfx run experiment=resnet_phase scale=quick && mfx collect outputs/resnet_phase/quick"
        " && mfx report outputs/resnet_phase/quick",
    )
    p.add_argument("--version", action="version", version=f"mfx {mfx.__version__}")
    sub = p.add_subparsers(
        dest="command",
        metavar="{run,list,statements,metrics,status,collect,plot,report,compare,audit,docs,calibrate}",
    )
    sub.add_parser("run", help="run an experiment's sweep (Hydra overrides follow)", add_help=False)
    raw = argparse.RawDescriptionHelpFormatter
    ls = sub.add_parser(
        "list",
        help="list the registered experiments",
        description="Every registered experiment: name, paper (arXiv id), figure, jobs at scale quick / paper, "
        "and the claims of its newest report by kind (paper / derived / cross-check / identity).",
        epilog="example:\n  mfx list",
        formatter_class=raw,
    )
    ls.add_argument("--names", action="store_true", help="print only the names, one per line")
    ls.add_argument("--long", action="store_true", help="each figure's full description (default: its label)")
    ls.add_argument(
        "--out", default="outputs", help="where to look for reports (claims by kind; default: outputs)"
    )
    sm = sub.add_parser(
        "statements",
        help="the papers' statements: reproduced / in part / not tested, with their claims",
        description="Every statement of the papers that mfx tests (mfx/<family>/statements.py): its "
        "status from the claims of each experiment's latest report under OUT at one scale, its claims by "
        "kind and verdict, and what is missing (parts without a claim, paper claims without the "
        "resolution their statement asks for).",
        epilog="example:\n  mfx statements\n  mfx statements resnet --long --scale paper",
        formatter_class=raw,
    )
    sm.add_argument("family", nargs="?", choices=registry.FAMILIES, help="one family (default: all)")
    sm.add_argument("--out", default="outputs", help="where the reports are (default: outputs)")
    sm.add_argument("--scale", default="quick", choices=SCALES)
    sm.add_argument("--long", action="store_true", help="each statement's quote, place and parts")
    dc = sub.add_parser(
        "docs",
        help="write docs/statements.md and docs/claims.md from the registries and a claims.csv",
        description="Write the generated docs: statements.md (every statement: quote, place, status, "
        "parts and their claims) and claims.md (every claim: kind, statement, range, verdict, mistake, "
        "resolution), from the statements registries and one claims.csv, kept beside them as "
        "claims-quick.csv; with --paper-claims also statements-paper.md (the statements at paper scale, "
        "the README's second headline), its claims kept as claims-paper.csv.",
        epilog="example:\n  mfx run experiment=all scale=quick && mfx docs --claims outputs/report-quick/claims.csv",
        formatter_class=raw,
    )
    dc.add_argument(
        "--claims", default="docs/claims-quick.csv", help="a claims.csv (default: docs/claims-quick.csv)"
    )
    dc.add_argument(
        "--paper-claims",
        help="the paper run's claims.csv (default: the kept docs/claims-paper.csv, where there is one)",
    )
    dc.add_argument("--out", default="docs", help="the docs folder (default: docs)")
    dc.add_argument("--readme", default="README.md", help="whose figure table and headline to rewrite")
    cb = sub.add_parser(
        "calibrate",
        help="measure the dry run's cost model (seconds per unit of job size) from a finished run",
        description="Seconds per unit of job size of every experiment and scale with complete jobs under "
        "OUT (their recorded times), written into mfx's costs.json: what `mfx run --dry-run` estimates "
        "a job by where no earlier run under its own out recorded it.",
        epilog="example:\n  mfx run experiment=all scale=quick && mfx calibrate outputs",
        formatter_class=raw,
    )
    cb.add_argument("out", metavar="OUT", help="an output folder of finished sweeps")
    cb.add_argument(
        "--performance", metavar="PATH", help="also write the run's timing record there (docs/performance.md)"
    )
    mt = sub.add_parser(
        "metrics",
        help="what each column and metric of an experiment's rows means",
        description="The glossary of the rows (rows.csv, table.csv): every column and every value of the "
        "metric column, one line each, per family and experiment.",
        epilog="example:\n  mfx metrics resnet_depth\n  mfx metrics            # every experiment",
        formatter_class=raw,
    )
    mt.add_argument("experiment", nargs="?", help="one experiment (default: all)")
    st = sub.add_parser(
        "status",
        help="list the sweeps under an output folder: jobs complete / incomplete, latest verdicts",
        description="Every sweep found under OUT: its jobs (complete / incomplete) and the verdicts of its "
        "latest report (claims.csv).",
        epilog="example:\n  mfx status            # the sweeps under ./outputs\n  mfx status /scratch/mfx",
        formatter_class=raw,
    )
    st.add_argument(
        "out", nargs="?", default="outputs", metavar="OUT", help="output folder (default: outputs)"
    )
    cm = sub.add_parser(
        "compare",
        help="claims of two sweeps side by side (measured ± u, verdicts)",
        description="The claims of two sweeps side by side: measured ± u and verdict in each (from each "
        "sweep's claims.csv when it is up to date, else evaluated on its jobs).",
        epilog="example:\n  mfx compare outputs/resnet_depth/quick outputs/resnet_depth/quick-1a2b3c4d",
        formatter_class=raw,
    )
    cm.add_argument("a", metavar="DIR_A", help="a sweep folder, table.csv or claims.csv")
    cm.add_argument("b", metavar="DIR_B", help="a sweep folder, table.csv or claims.csv")
    cm.add_argument(
        "--mixed",
        action="store_true",
        help="a folder holding jobs of several configurations of one experiment is one table (as collect --mixed)",
    )
    c = sub.add_parser(
        "collect",
        help="concatenate every job's rows.csv into table.csv",
        description="Concatenate every rows.csv under the given directories into one table.csv.",
        epilog="example:\n  mfx collect outputs/resnet_depth/quick   # writes outputs/resnet_depth/quick/table.csv",
        formatter_class=raw,
    )
    c.add_argument("dirs", nargs="+", metavar="DIR")
    c.add_argument("-o", "--out", help="output file (default: DIR/table.csv of the first DIR)")
    c.add_argument(
        "--mixed",
        action="store_true",
        help="allow jobs of one experiment made by different configurations (the report says so)",
    )
    for name, what in (
        ("plot", "draw every figure (PDF + PNG)"),
        ("report", "write report.md, report.html and claims.csv"),
    ):
        s = sub.add_parser(
            name,
            help=what + " of a collected table",
            description=what[0].upper()
            + what[1:]
            + " of the experiments under a folder (an output root, an experiment's folder or one sweep:"
            " each sweep collected alone, each variant its own section) or in a collected table"
            + (
                ": figures, fitted rates and a pass/fail verdict for every claim of the papers."
                if name == "report"
                else ", with fitted rates drawn and labelled."
            ),
            epilog=f"example:\n  mfx {name} outputs/resnet_phase/quick --out figs"
            + (
                "\n  mfx report outputs/resnet_phase/quick --strict   # exit 1 if a claim fails"
                "\n  mfx report outputs                                # everything: outputs/report.html"
                if name == "report"
                else ""
            ),
            formatter_class=raw,
        )
        s.add_argument(
            "table", metavar="TABLE_OR_DIR", help="a table.csv, or a directory (collected if needed)"
        )
        s.add_argument("--out", help="output directory (default: the table's directory)")
        if name == "report":
            s.add_argument(
                "--strict", action="store_true", help="exit 1 if any claim fails or is inconclusive"
            )
        s.add_argument(
            "--mixed",
            action="store_true",
            help="one table of all the jobs under DIR, even of different configurations of one "
            "experiment (default: each sweep alone, each variant its own)",
        )
    a = sub.add_parser(
        "audit",
        help="run every experiment for several seeds and count each claim's verdicts",
        description="Run experiments at one scale for each seed, evaluate every claim per seed, and print "
        "the pass / fail / inconclusive counts of each claim (also written to OUT/audit.csv).",
        epilog="example:\n  mfx audit --seeds 10 --first-seed 3000 --out outputs/audit --md docs/audit.md   # `make audit`",
        formatter_class=raw,
    )
    a.add_argument("--seeds", type=int, default=10, help="how many seeds (default 10)")
    a.add_argument(
        "--first-seed",
        type=int,
        default=1000,
        help="the first seed (default 1000); fresh means no range or set-up was changed after seeing it: "
        "the audit's post-hoc column names the seeds each change saw",
    )
    a.add_argument("--scale", default="quick", choices=SCALES)
    a.add_argument("--experiments", default="all", help="comma-separated names, or all (default)")
    a.add_argument("--out", default="outputs/audit", help="root of the audit's sweeps")
    a.add_argument(
        "--md", help="also write the table as Markdown here, headed by its command, commit, date and machine"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """The command line, with standard streams that can neither crash it nor hide its exit status: a
    closed or missing stdout/stderr (`mfx run >&-`) is the null device, and a reader that stops reading
    (`mfx run … | head -1`) silences the rest of the output, not the work nor its exit status."""
    for fd in (0, 1, 2):  # a closed descriptor would be reused by the next file opened, then written to
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Quiet.wrap(sys.stdout, clean=True), _Quiet.wrap(sys.stderr)
    try:
        code = _main(argv)
        sys.stdout.flush()  # what is still buffered, while a closed pipe is still quietly handled
        sys.stderr.flush()
        return code
    finally:
        sys.stdout, sys.stderr = saved


class _Quiet:
    """A standard stream that never raises for its reader's sake: once the reader is gone (a closed
    pipe), the rest goes to the null device and the command goes on."""

    def __init__(self, stream, clean: bool = False):
        self._stream, self.gone, self.clean = stream, False, clean

    @classmethod
    def wrap(cls, stream, clean: bool = False):
        if isinstance(stream, cls):
            return stream
        return cls(stream if stream is not None else open(os.devnull, "w", encoding="utf-8"), clean)

    def write(self, text):
        if not self.gone:
            try:
                # a folder or claim name from the output folder never moves the cursor or rings: what the
                # commands print on stdout is shown with its control characters escaped (stderr carries
                # tqdm's \r and is cleaned where names are printed)
                return self._stream.write(printable(text) if self.clean else text)
            except (BrokenPipeError, ValueError):  # ValueError: the stream was closed
                self._leave()
        return len(text)

    def flush(self):
        if not self.gone:
            try:
                self._stream.flush()
            except (BrokenPipeError, ValueError):
                self._leave()

    def _leave(self):
        self.gone = True
        with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):  # capsys has no fileno
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._stream.fileno())  # what the stream still buffers goes nowhere, quietly
            os.close(null)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # mfx/__init__ exits at once during imports
    for stream in (sys.stdout, sys.stderr):  # an ASCII terminal (PYTHONIOENCODING=ascii) shows → as \u2192
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")
    try:
        if argv and argv[0] == "run":
            return runner.run(argv[1:])
        args = _parser().parse_args(argv)
        if args.command is None:
            _parser().print_help()
            return 0
        command = runner.audit if args.command == "audit" else commands.COMMANDS[args.command]
        return command(args)
    except ConfigError as e:
        if os.environ.get("MFX_DEBUG"):
            raise
        print(f"mfx: error: {results.printable(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if os.environ.get("MFX_DEBUG"):
            raise
        print("mfx: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `mfx … | head` stopped reading: nothing to say, and nothing more to write
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # one line, never a traceback (MFX_DEBUG=1 shows it)
        if os.environ.get("MFX_DEBUG"):
            raise
        hint = "" if isinstance(e, OSError) else " (MFX_DEBUG=1 shows the traceback)"
        print(f"mfx: error: {sweep.one_line(e)}{hint}", file=sys.stderr)
        return 1
