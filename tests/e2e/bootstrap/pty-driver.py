"""Runs a command under a pseudo-terminal and answers its prompts, for the wizard test.

Usage: python3 pty-driver.py '<json>' where json is
  {"argv": [...], "cwd": "...", "env": {...}, "steps": [["text to wait for", "answer"], ...],
   "timeout": seconds}
Prints one JSON line: {"code": exit code, "output": everything the terminal showed}.
A step whose text does not appear within the timeout ends the run with code -1.
"""
import json
import os
import pty
import select
import sys
import time

spec = json.loads(sys.argv[1])
deadline_per_step = spec.get("timeout", 20)

pid, fd = pty.fork()
if pid == 0:
    os.chdir(spec["cwd"])
    os.execve(spec["argv"][0], spec["argv"], spec["env"])

output = b""
seen = 0  # answers are matched only against output after the previous match


def read_some(timeout):
    global output
    ready, _, _ = select.select([fd], [], [], timeout)
    if not ready:
        return True
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        return False
    if not chunk:
        return False
    output += chunk
    return True


failed = False
for expected, answer in spec["steps"]:
    needle = expected.encode()
    deadline = time.time() + deadline_per_step
    while needle not in output[seen:]:
        if time.time() > deadline or not read_some(0.2):
            failed = True
            break
    if failed:
        break
    seen = output.index(needle, seen) + len(needle)
    os.write(fd, answer.encode() + b"\r")

deadline = time.time() + deadline_per_step
while time.time() < deadline and read_some(0.2):
    pass
_, status = os.waitpid(pid, 0)
code = -1 if failed else (os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
print(json.dumps({"code": code, "output": output.decode("utf-8", "replace")}))
