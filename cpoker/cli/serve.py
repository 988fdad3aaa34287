"""``cpoker serve`` (the local web page) and ``cpoker compile`` (every kernel, ahead of first use)."""

from __future__ import annotations

import contextlib
import sys

from cpoker.system import interrupts
from cpoker.system.environment import check_kernel_environment
from cpoker.system.errors import Interrupted
from cpoker.cli.common import fixed, print_json
from cpoker.cli.options import command, int_in


def cmd_serve(args) -> int:
    """Run the web page and API until Ctrl-C (see :mod:`cpoker.web.app`)."""
    from cpoker.system.errors import OptionError

    try:
        import uvicorn

        from cpoker.web.app import create_app, warm_up
    except ImportError as error:
        raise OptionError(f"cpoker serve needs the web extra: pip install 'cpoker[web]' ({error})") from None
    check_kernel_environment()  # before numba is loaded (as cpoker.system.jit does)
    import numba

    workers = None
    # solves run side by side on server threads
    numba.config.THREADING_LAYER = "threadsafe"  # type: ignore[attr-defined]
    print("cpoker: compiling kernels and loading tables...", file=sys.stderr, flush=True)
    try:
        warm_up()
    except ValueError:  # no thread-safe threading layer (TBB or OpenMP) here: one solve at a time
        numba.config.THREADING_LAYER = "default"  # type: ignore[attr-defined]
        workers = 1
        warm_up()
    signum = interrupts.consume()
    if signum is not None:  # Ctrl-C while it warmed up: no server, and no "ready" line first
        raise Interrupted(signum)
    import socket

    try:  # listen first, so that "ready" is true the moment it is printed
        family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((args.host, args.port))
        listener.listen(128)
    except (OSError, OverflowError) as error:
        raise OptionError(f"cannot serve on {args.host}:{args.port}: {getattr(error, 'strerror', None) or error}") \
            from None
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"cpoker: warning: serving on {args.host}, reachable from other machines; the default "
              "127.0.0.1 serves this machine only", file=sys.stderr, flush=True)
    url = f"http://{'localhost' if args.host in ('127.0.0.1', '::1') else args.host}:{args.port}/"
    print(f"cpoker: ready at {url} (Ctrl-C to stop)", file=sys.stderr, flush=True)
    if args.open:
        import webbrowser

        webbrowser.open(url)
    server = _server_class()(uvicorn.Config(create_app(workers=workers), log_level="warning"))
    server.run(sockets=[listener])
    return 0


def _server_class():
    """uvicorn's ``Server``, taking over a signal that came before its own handlers were installed."""
    import uvicorn

    class Server(uvicorn.Server):
        """A Ctrl-C between "ready" and uvicorn's handlers (its loop starting, tens of milliseconds) was held
        by cpoker's shield, which uvicorn then replaced: the server ran on, the signal ignored."""

        @contextlib.contextmanager
        def capture_signals(self):
            with super().capture_signals():
                if interrupts.consume() is not None:  # shut down as uvicorn does for its own signal
                    self.should_exit = True
                yield

    return Server


def cmd_compile(args) -> int:
    """Compile every kernel into numba's cache, a line on stderr per job as it ends
    (see :mod:`cpoker.jobs.precompile`)."""
    from cpoker.jobs.precompile import compile_kernels

    def report(job: str, seconds: float, compiled: int) -> None:
        if not args.quiet:
            print(f"cpoker: {job}: {_kernels(compiled)} compiled, "
                  f"{fixed(seconds, '.1f')} s", file=sys.stderr, flush=True)

    done = compile_kernels(rules=args.rules or None, device=args.device, report=report)
    if args.json:
        print_json({"compiled": done.compiled, "seconds": round(done.seconds, 3), "cache_dir": done.cache_dir,
                     "device": args.device,
                     "jobs": [{"job": job, "seconds": round(seconds, 3), "compiled": compiled}
                              for job, seconds, compiled in done.steps]})
        return 0
    where = (f"cached in {done.cache_dir}" if done.cache_dir is not None
             else "not cached: no writable cache directory (set NUMBA_CACHE_DIR)")
    print(f"{_kernels(done.compiled)} compiled in "
          f"{fixed(done.seconds, '.1f')} s, the others loaded from the cache; {where}")
    return 0


def _kernels(count: int) -> str:
    return f"{count:,} kernel{'' if count == 1 else 's'}"


def add_compile(commands) -> None:
    """The ``compile`` command's parser."""
    sub = command(commands, "compile", "compile every kernel ahead of the first command (after installing, in a "
                                       "container image, on a cluster's nodes)",
                  "cpoker compile\n         cpoker compile --rules pagat --rules house.toml")
    sub.add_argument("--rules", action="append", default=None,
                     help="compile for these rules only (repeatable; default: every preset)")
    sub.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                     help="cuda: the GPU's kernels too (they are cached as well); cpu by default")
    sub.add_argument("--quiet", action="store_true", help="no line per job on stderr")
    sub.set_defaults(run=cmd_compile)


def add_serve(commands) -> None:
    """The ``serve`` command's parser."""
    sub = commands.add_parser("serve", help="a local web page to solve hands and to train, with a JSON API",
                              description="a local web page to solve hands and to train, with a JSON API "
                                          "(its schema at /openapi.json)",
                              epilog="example: cpoker serve --port 8000 --open")
    sub.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    sub.add_argument("--port", type=int_in(1, 65535), default=8000, help="port (default 8000)")
    sub.add_argument("--open", action="store_true", help="open the page in a browser")
    sub.set_defaults(run=cmd_serve)
