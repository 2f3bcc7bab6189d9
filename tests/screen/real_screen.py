"""A real X screen for tests of what a person sees: Xvfb at a given size with a window manager (openbox).

The rest of the suite runs Qt offscreen, where a maximized window is whatever size it asks for and nothing
scrolls as on a projector.  Here a probe script runs in a child process on a real X server, with a window
manager (full screen and maximize need one), and prints one JSON object on its last line of stdout.

    with RealScreen(1280, 720) as screen:
        report = screen.run_probe(PROBE, "--lang", "zh")

Needs Debian's xvfb and openbox (`.ci/setup test` installs them where it can).  A missing server is an error,
not a skip: these tests are the only ones that look at the window at a projector's size.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class RealScreen:
    """An Xvfb display of width x height (24-bit) with openbox running on it, for the life of a `with`."""

    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        self.display: str | None = None
        self._procs: list[subprocess.Popen] = []
        self._home = tempfile.mkdtemp(prefix="ae-screen-")

    def __enter__(self) -> "RealScreen":
        for tool in ("Xvfb", "openbox"):
            if shutil.which(tool) is None:
                raise RuntimeError(f"{tool} is not installed: `bash .ci/setup test` installs xvfb and openbox "
                                   "(apt-get install xvfb openbox)")
        read, write = os.pipe()
        xvfb = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", f"{self.width}x{self.height}x24", "-nolisten", "tcp",
             "-noreset"], pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        self._procs.append(xvfb)
        number = b""
        with os.fdopen(read, "rb") as pipe:
            while not number.endswith(b"\n"):
                chunk = pipe.read(1)
                if not chunk:
                    self.__exit__(None, None, None)
                    raise RuntimeError("Xvfb did not start")
                number += chunk
        self.display = f":{int(number)}"
        self._procs.append(subprocess.Popen(["openbox"], env=self.env(), stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL))
        time.sleep(0.5)  # openbox takes the screen's management before the first window maps
        return self

    def __exit__(self, *exc) -> None:
        for p in reversed(self._procs):
            p.terminate()
        for p in reversed(self._procs):
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
        self._procs.clear()
        shutil.rmtree(self._home, ignore_errors=True)

    def env(self) -> dict[str, str]:
        """The environment of a process that draws on this screen: xcb, its own HOME and settings."""
        env = dict(os.environ, DISPLAY=self.display or "", QT_QPA_PLATFORM="xcb", HOME=self._home,
                   XDG_CONFIG_HOME=os.path.join(self._home, "config"),
                   XDG_DATA_HOME=os.path.join(self._home, "data"))
        env.pop("WAYLAND_DISPLAY", None)
        return env

    def run_probe(self, script: Path, *args: str, timeout: float = 600) -> dict:
        """Run `script` with this screen's display; its last stdout line is the JSON it reports."""
        res = subprocess.run([sys.executable, str(script), *args], cwd=ROOT, env=self.env(), capture_output=True,
                             text=True, timeout=timeout)
        if res.returncode != 0:
            raise AssertionError(f"{script.name} {' '.join(args)} exited {res.returncode}:\n{res.stderr[-4000:]}")
        lines = [line for line in res.stdout.splitlines() if line.strip()]
        if not lines:
            raise AssertionError(f"{script.name} printed nothing:\n{res.stderr[-4000:]}")
        return json.loads(lines[-1])
