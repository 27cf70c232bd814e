"""mfx: one command line to reproduce the figures and quantitative claims of three papers on the
large-depth / large-width limits of training — deep ResNets (`mfx.resnet`), one-pass SGD in
quadratic networks (`mfx.quadratic`) and mean-field transformers (`mfx.transformer`).

`mfx.load(path)` reads the results of a sweep as a pandas DataFrame, `mfx.load_claims(path)` its
claims (see `mfx.api`).  torch, pandas and matplotlib load on first use (`mfx.lazy`).

Start-up settings live here because this module is imported before anything heavy (torch,
matplotlib, numba): Ctrl-C during those imports is one line and exit 130 (`mfx.cli.main` installs
Python's own handler again once it runs), mfx always draws with Agg (a backend exported by
Jupyter, `module://matplotlib_inline…`, would fail every command), numba's cache goes to a
writable folder when the installed package is read-only, and a machine whose only temporary folder
would be the current directory is refused with one line (TMPDIR) before anything is written there.
"""

import os
import signal
import sys
import tempfile


def _interrupted_at_startup(signum, frame):
    sys.stderr.write("mfx: interrupted\n")
    os._exit(130)


def private_folder(path: str) -> str:
    """`path` as a folder only this user can write (numba's cache holds pickles, `mfx run --dry-run`
    keeps its plans), else a fresh one."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        st = os.lstat(path)
        if not os.path.isdir(path) or os.path.islink(path) or st.st_uid != os.getuid() or st.st_mode & 0o022:
            return tempfile.mkdtemp(prefix=os.path.basename(path) + "-")
    return path


def _temporary_folder() -> str | None:
    """Python's temporary folder, or None where there is none but the current directory (Python's last
    resort: numba's cache, matplotlib's and Hydra's files would land among the user's own)."""
    try:
        folder = tempfile.gettempdir()
    except OSError:  # "No usable temporary directory found in [...]"
        return None
    named = [os.environ.get(k) for k in ("TMPDIR", "TEMP", "TMP")] + ["/tmp", "/var/tmp", "/usr/tmp"]
    if os.path.realpath(folder) in {os.path.realpath(d) for d in named if d}:
        return folder  # a temporary folder of its own (the working directory may be /tmp itself)
    return None


# the `mfx` command (or `python -m mfx`), not a library import (pytest, a notebook)
_COMMAND = os.path.basename(sys.argv[0] if sys.argv else "") in ("mfx", "-m")
if _COMMAND and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, _interrupted_at_startup)
if _COMMAND and _temporary_folder() is None:
    sys.stderr.write(
        f"mfx: error: TMPDIR must name a writable folder (got {os.environ.get('TMPDIR', '')!r}; "
        "no other temporary folder is writable but the current directory)\n"
    )
    sys.exit(2)
os.environ["MPLBACKEND"] = "agg"
if "NUMBA_CACHE_DIR" not in os.environ and not os.access(os.path.dirname(__file__), os.W_OK):
    temporary = _temporary_folder()
    if temporary is not None:  # else numba's own user-wide cache (~/.cache/numba)
        os.environ["NUMBA_CACHE_DIR"] = private_folder(os.path.join(temporary, f"mfx-numba-{os.getuid()}"))

__version__ = "0.1.0"

# after the start-up settings above, which must run before anything heavy is imported
from mfx.api import load, load_claims

__all__ = ["__version__", "load", "load_claims"]
