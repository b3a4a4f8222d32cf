"""Run memchat from a given checkout, whatever is installed.

    python tests/bench/checkout.py ROOT [memchat's arguments]
    python tests/bench/checkout.py ROOT -c CODE [arguments]

An editable install (`pip install -e .`) finds memchat through a finder on sys.meta_path, which
Python asks before PYTHONPATH's entries: a checkout put on PYTHONPATH to compare with was
silently the installed tree. This drops that finder and puts ROOT first, then runs memchat (or
CODE, as `python -c` would).
"""

import runpy
import sys

root = sys.argv.pop(1)
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, root)
if sys.argv[1:2] == ["-c"]:
    code = sys.argv[2]
    sys.argv = ["-c", *sys.argv[3:]]
    exec(compile(code, "<string>", "exec"), {"__name__": "__main__"})
else:
    sys.argv[0] = "memchat"
    runpy.run_module("memchat", run_name="__main__", alter_sys=True)
