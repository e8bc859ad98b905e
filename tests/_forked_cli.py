"""``python -m MODULE ARGS`` for the tests, forked from a process that has already imported the heavy modules.

Each CLI process the suite starts spends 1.3-1.9 CPU-s importing (tau2, pandas, pyarrow, pydantic models) for a
few milliseconds of work. A ``Zygote`` is one helper process (started on first use, one per pytest process)
that imports those modules once, then forks one child per call. The child takes the call's environment (the
whole of it), folder, stdin, stdout and stderr (file descriptors passed over a Unix socket), runs ``MODULE`` as
``python -m`` does (``runpy``'s function for ``-m``: as ``__main__``, ``sys.argv[0]`` its file) and ends as an interpreter does:
an uncaught exception's traceback and status 1, ``SystemExit``'s code, non-daemon threads joined, atexit
handlers, stdout and stderr flushed. The caller gets ``subprocess.run``'s result: returncode (negative for a
signal), text output, ``subprocess.TimeoutExpired`` after killing the child.

Not a fresh process in what an import fixed: the zygote records every environment variable its imports read
(``Ready.read_at_import``), and ``Zygote.cannot_run`` names a call whose environment differs in one of those,
in a variable read before Python code runs (``STARTUP_VARIABLES``), or whose folder would import other
source: that call needs a fresh process. Children also share the zygote's string hash seed.

Started by ``Zygote`` as ``python tests/_forked_cli.py FD MODULE [PRELOAD ...]``; standard library only.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import importlib.machinery
import json
import locale
import os
import runpy
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import types
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

# Read by the interpreter or by C libraries (libc's locale and time zone, OpenBLAS, jemalloc, Arrow) when a
# process starts or a library loads, before any Python code could record it: a call that differs in one of
# these needs a fresh process.
STARTUP_VARIABLES = ("PYTHON", "LC_", "LANG", "TZ", "HOME", "LD_", "OPENBLAS", "OMP_", "GOTO", "MKL_",
                     "MALLOC_", "JE_", "ARROW_", "_PYTHON")
_MESSAGE = 1 << 20  # largest request (argv and environment); a larger one fails the send, the caller goes fresh


# --- the zygote ---------------------------------------------------------------------------------------


@contextlib.contextmanager
def _recording_environment_reads(names: set[str]) -> Iterator[None]:
    """Every ``os.environ`` key looked up inside the block is added to ``names`` (``"*"`` for a whole-copy)."""
    environ = type(os.environ)
    names_patched = ("__getitem__", "__contains__", "__iter__")
    own = {name: environ.__dict__.get(name) for name in names_patched}  # None: inherited (from Mapping)
    saved = {name: getattr(environ, name) for name in names_patched}

    def getitem(self: Any, key: str) -> str:
        names.add(key)
        return saved["__getitem__"](self, key)

    def contains(self: Any, key: object) -> bool:
        names.add(str(key))
        return saved["__contains__"](self, key)

    def iterate(self: Any) -> Iterator[str]:
        names.add("*")
        return saved["__iter__"](self)

    environ.__getitem__, environ.__contains__, environ.__iter__ = getitem, contains, iterate  # type: ignore[method-assign]
    try:
        yield
    finally:
        for name, method in own.items():
            if method is None:
                delattr(environ, name)
            else:
                setattr(environ, name, method)


def _serve(sock: socket.socket, module: str, preload: Sequence[str]) -> None:
    before = dict(os.environ)
    read: set[str] = set()
    with _recording_environment_reads(read):
        for name in preload:
            importlib.import_module(name)
    # What the imports wrote (harness sets LITELLM_LOCAL_MODEL_COST_MAP): a call that agrees on every variable
    # they read would get the same writes in a fresh process, so each child repeats them.
    written = {k: v for k, v in os.environ.items() if before.get(k) != v}
    removed = [k for k in before if k not in os.environ]
    os.environ.clear()
    os.environ.update(before)
    threads = threading.active_count()
    _send(sock, {"read_at_import": sorted(read), "cwd": os.getcwd(), "threads": threads})
    # The caller stops reading its stderr now (it showed what an import printed, had one failed): a later
    # line written there (a warning) must not fail on the closed pipe.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
    gc.freeze()  # the imported objects stay out of the children's collections (and their pages shared)
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, _MESSAGE, 3)
        except OSError:
            return
        if not data:
            return  # the caller is gone
        request = json.loads(data)
        if "imports_in" in request:
            _send(sock, {"differs": _imports_differ(request["imports_in"])})
            continue
        if threading.active_count() != 1:  # forking beside a thread could copy a lock it holds
            _send(sock, {"error": f"{threading.active_count()} threads in the zygote"})
            for fd in fds:
                os.close(fd)
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            sock.close()
            _child(module, request, fds, written, removed)
        for fd in fds:
            os.close(fd)
        _send(sock, {"pid": pid})
        _, status = os.waitpid(pid, 0)
        _send(sock, {"returncode": os.waitstatus_to_exitcode(status)})


def _imports_differ(folder: str) -> str | None:
    """What a fresh ``python -m`` in ``folder`` (``sys.path[0]``) would import from elsewhere than this
    process did: one top-level module's name and where, or None."""
    saved, sys.path[0] = sys.path[0], folder
    try:
        for name, module in sorted(sys.modules.items()):
            loaded = getattr(module, "__spec__", None)
            if "." in name or loaded is None or loaded.origin in ("built-in", "frozen"):
                continue
            found = importlib._bootstrap._find_spec(name, None)  # type: ignore[attr-defined]  # sys.modules aside
            if found is None or (found.origin, found.submodule_search_locations) != (
                    loaded.origin, loaded.submodule_search_locations):
                return f"module {name} would be imported from {found.origin if found else 'nowhere'}"
    finally:
        sys.path[0] = saved
    return None


def _child(module: str, request: dict[str, Any], fds: list[int], written: dict[str, str],
           removed: list[str]) -> NoReturn:
    """Run ``module`` as ``python -m`` would in a fresh process with the request's argv, env, cwd and stdio."""
    code = 1
    signalled = False
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        os.environ.update(written)
        for name in removed:
            os.environ.pop(name, None)
        sys.path[0] = os.getcwd()  # ``python -m`` puts the folder it runs in first
        importlib.invalidate_caches()  # a module written since the zygote listed its folders is found
        sys.argv = [module, *request["argv"]]
        sys.modules["__main__"] = types.ModuleType("__main__")  # not this file's: the module runs in its own
        if request.get("prelude"):
            exec(compile(request["prelude"], "<prelude>", "exec"), {"__name__": "__prelude__"})
        runpy._run_module_as_main(module, alter_argv=True)  # type: ignore[attr-defined]  # what -m runs
        code = 0
    except SystemExit as exc:
        code = _exit_status(exc.code)
    except BaseException as exc:  # noqa: B036 - as the interpreter: traceback, then status 1
        with contextlib.suppress(BaseException):
            sys.excepthook(type(exc), exc, exc.__traceback__)
        signalled = isinstance(exc, KeyboardInterrupt)  # the interpreter then dies by SIGINT
    code = _finalize(code)
    if signalled:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(code)


def _exit_status(code: object) -> int:
    """The status the interpreter exits with for ``SystemExit(code)``; anything but an int is printed."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(BaseException):
        print(code, file=sys.stderr)
    return 1


def _finalize(code: int) -> int:
    """The interpreter's exit: wait for non-daemon threads, run atexit handlers, flush stdout and stderr
    (a failed flush exits 120)."""
    try:
        threading._shutdown()  # type: ignore[attr-defined]
    except BaseException:  # noqa: B036 - a KeyboardInterrupt here ends the wait, as in the interpreter
        traceback.print_exc()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: B036
            code = 120
    return code


def _send(sock: socket.socket, message: dict[str, Any]) -> None:
    sock.sendall(json.dumps(message).encode())


def _receive(sock: socket.socket) -> dict[str, Any]:
    data = sock.recv(_MESSAGE)
    if not data:
        raise ZygoteGone("the zygote process ended")
    message: dict[str, Any] = json.loads(data)
    if "error" in message:
        raise ZygoteGone(message["error"])
    return message


# --- the caller ---------------------------------------------------------------------------------------


class ZygoteGone(RuntimeError):
    """The zygote could not run the call (it ended, or refused to fork)."""


@dataclass(frozen=True)
class Ready:
    read_at_import: frozenset[str]  # environment variables the preloaded imports read ("*": all of them)
    cwd: str  # the folder the zygote started in (its ``sys.path[0]``)
    env: Mapping[str, str]  # the environment it imported under


class Zygote:
    """One zygote process: ``run`` forks a child of it per call. Not thread-safe: ``busy`` says a call is on."""

    def __init__(self, module: str, preload: Sequence[str], env: Mapping[str, str], cwd: str | Path,
                 start_timeout: float = 300) -> None:
        self.module = module
        self.busy = threading.Lock()
        self._pid: int | None = None  # the running child's
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            self.process = subprocess.Popen(
                [sys.executable, __file__, str(theirs.fileno()), module, *preload],
                env=dict(env), cwd=cwd, pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            )
        self.sock = ours
        self.sock.settimeout(start_timeout)
        try:
            hello = _receive(self.sock)
        except (ZygoteGone, OSError) as exc:
            self.process.kill()
            _, err = self.process.communicate()
            raise ZygoteGone(f"the zygote did not start: {exc}\n{err.decode(errors='replace')[-3000:]}") from None
        if self.process.stderr is not None:
            self.process.stderr.close()  # what it prints from now on (nothing, normally) goes nowhere
        self.ready = Ready(frozenset(hello["read_at_import"]), hello["cwd"], dict(env))
        self.startup_threads: int = hello["threads"]

    def cannot_run(self, env: Mapping[str, str], cwd: str) -> str | None:
        """Why a call with ``env`` and ``cwd`` needs a fresh process (None when a fork behaves the same)."""
        ready = self.ready
        if "*" in ready.read_at_import and dict(env) != dict(ready.env):
            return "an import read the whole environment"
        names = set(env) | set(ready.env)
        for name in sorted(names):
            if (name in ready.read_at_import or name.startswith(STARTUP_VARIABLES)) and \
                    env.get(name) != ready.env.get(name):
                return f"${name} differs from the zygote's and is read at start-up or import"
        if not os.path.isdir(cwd):
            return f"no folder {cwd}"
        if os.path.realpath(cwd) != os.path.realpath(ready.cwd):
            self.sock.settimeout(None)
            _send(self.sock, {"imports_in": cwd})
            differs: str | None = _receive(self.sock)["differs"]
            return differs
        return None

    def run(self, argv: Sequence[str], env: Mapping[str, str], cwd: str, input: str | None = None,
            timeout: float | None = None, prelude: str | None = None,
            args: list[str] | None = None) -> subprocess.CompletedProcess[str]:
        """``subprocess.run([python, -m, module, *argv], capture_output=True, text=True, ...)`` by a fork:
        stdout and stderr are pipes read to their end, as ``communicate`` reads them (a process the child
        leaves holding one keeps the call waiting, as it would); ``args`` is the result's ``args``."""
        shown = args if args is not None else [sys.executable, "-m", self.module, *argv]
        request = json.dumps({"argv": list(argv), "env": dict(env), "cwd": cwd, "prelude": prelude}).encode()
        encoding = locale.getpreferredencoding(False)  # text=True's, as subprocess decodes
        deadline = None if timeout is None else time.monotonic() + timeout
        self._pid = None
        try:
            return self._run(request, shown, encoding, input, timeout, deadline)
        except (subprocess.TimeoutExpired, ZygoteGone):
            raise
        except BaseException:  # noqa: B036 - interrupted (Ctrl-C): the child killed as subprocess.run does
            if self._pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self._pid, signal.SIGKILL)
            self.process.kill()  # its answers are out of step now; the next call starts another
            raise

    def _run(self, request: bytes, shown: list[str], encoding: str, input: str | None, timeout: float | None,
             deadline: float | None) -> subprocess.CompletedProcess[str]:
        with contextlib.ExitStack() as stack:
            if input is None:
                stdin = _inherited_stdin(stack)
            else:
                file = stack.enter_context(tempfile.TemporaryFile())
                file.write(input.encode(encoding))
                file.seek(0)
                stdin = file.fileno()
            (out, out_w), (err, err_w) = os.pipe(), os.pipe()
            for fd in (out, err):
                stack.callback(os.close, fd)
            try:
                self.sock.settimeout(None)
                socket.send_fds(self.sock, [request], [stdin, out_w, err_w])
            finally:
                os.close(out_w)
                os.close(err_w)
            read = {out: bytearray(), err: bytearray()}
            pid, returncode, done = self._until_done(read, deadline)
            if not done:  # timed out: the child killed and waited for, as subprocess.run does
                if returncode is None:
                    if pid is None:
                        pid = self._pid = self._answer()["pid"]
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)  # not reaped yet: the zygote reaps it, then answers
                    self._answer()
                assert timeout is not None
                raise subprocess.TimeoutExpired(shown, timeout, output=bytes(read[out]) or None,
                                                stderr=bytes(read[err]) or None)
            assert returncode is not None
        return subprocess.CompletedProcess(shown, returncode, _text(read[out], encoding), _text(read[err], encoding))

    def _until_done(self, read: dict[int, bytearray], deadline: float | None) -> tuple[int | None, int | None, bool]:
        """Read the pipes and the zygote's answers (the child's pid, then its returncode) until the child has
        ended and both pipes are at their end (done), or ``deadline`` passes (not done)."""
        pid, returncode = None, None
        with selectors.DefaultSelector() as selector:
            for fd in read:
                selector.register(fd, selectors.EVENT_READ)
            selector.register(self.sock, selectors.EVENT_READ)
            while selector.get_map():
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return pid, returncode, False
                for key, _ in selector.select(left):
                    if key.fileobj is self.sock:
                        message = _receive(self.sock)
                        pid = self._pid = message.get("pid", pid)
                        if "returncode" in message:
                            returncode = message["returncode"]
                            selector.unregister(self.sock)
                    elif chunk := os.read(key.fd, 1 << 16):
                        read[key.fd] += chunk
                    else:
                        selector.unregister(key.fd)
        return pid, returncode, True

    def _answer(self) -> dict[str, Any]:
        self.sock.settimeout(None)
        return _receive(self.sock)

    def close(self) -> None:
        """End the zygote (its children have all been waited for)."""
        self.sock.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _inherited_stdin(stack: contextlib.ExitStack) -> int:
    """This process's stdin, as ``subprocess.run`` without ``input`` passes it on (/dev/null if closed)."""
    try:
        os.fstat(0)
        return 0
    except OSError:
        return stack.enter_context(open(os.devnull, "rb")).fileno()


def _text(data: bytes | bytearray, encoding: str) -> str:
    """As ``subprocess.run(text=True)`` decodes: strict, universal newlines."""
    return bytes(data).decode(encoding).replace("\r\n", "\n").replace("\r", "\n")


if __name__ == "__main__":
    sys.path[0] = os.getcwd()  # as ``python -m`` in this folder (started by path, so tests/ is not first)
    _serve(socket.socket(fileno=int(sys.argv[1])), sys.argv[2], sys.argv[3:])
