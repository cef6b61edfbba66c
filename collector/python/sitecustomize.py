# sitecustomize for cgrun(1): starts the callgraph collector's Python
# binding (_cgcollect, next to this file) and then runs the sitecustomize
# this one hides, if any (Debian ships one), so the site is unchanged.
# cgrun puts this directory first on PYTHONPATH; see cgcollect-interp(7).
import os
import sys


def _chain():
    # The next sitecustomize on the path, as if this directory were not there.
    import importlib.machinery
    import importlib.util
    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


def _start():
    try:
        import _cgcollect
    except ImportError as e:
        sys.stderr.write("cgrun: the Python binding does not load in this Python (%s): "
                         "not profiling\n" % e)
        return
    import threading
    threading.setprofile(_cgcollect._thread_start)
    _cgcollect.start()


_chain()
_start()
