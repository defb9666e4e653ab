#include "allocators/embedded_python/embedded_interpreter.hpp"

#include <mutex>
#include <stdexcept>

namespace memrel::embedded_python {
namespace {

void check(PyStatus status, const std::string& python, const char* what) {
  if (PyStatus_Exception(status)) {
    throw std::runtime_error("cannot start the Python of " + python + " (" + what +
                             "): " + (status.err_msg ? status.err_msg : "unknown error"));
  }
}

}  // namespace

void start_interpreter(const std::string& python) {
  static std::once_flag started;
  static std::string failure;
  std::call_once(started, [&python] {
    try {
      PyConfig config;
      PyConfig_InitPythonConfig(&config);
      // Ctrl-C and the parent's SIGTERM stay the cell's (platform/interrupt), not Python's.
      config.install_signal_handlers = 0;
      config.parse_argv = 0;
      // No PYTHON* variable read at start-up: a `sitecustomize.py` or `encodings/` in a PYTHONPATH
      // folder would run before memrel could look (docs/inputs.md, "Code"). PYTHONPATH's absolute
      // entries are added below, after the interpreter's own folders.
      config.use_environment = 0;
      config.safe_path = 1;
      // No user site at start-up either: `site` would run its .pth files, code in a user folder
      // (the tenth adversarial pass). Its folder is put on the path below, nothing in it run.
      config.user_site_directory = 0;
      // Nothing written beside the modules a framework backend imports, as python -B
      // (cli/python_module.cpp).
      config.write_bytecode = 0;
      // program_name as the interpreter that has the frameworks: Python computes its prefix from
      // it and finds a venv's pyvenv.cfg beside it, so sys.path is that Python's.
      PyStatus s = PyConfig_SetBytesString(&config, &config.program_name, python.c_str());
      if (!PyStatus_Exception(s)) {
        char* argv[] = {const_cast<char*>("memrel")};
        s = PyConfig_SetBytesArgv(&config, 1, argv);
      }
      if (!PyStatus_Exception(s)) s = Py_InitializeFromConfig(&config);
      PyConfig_Clear(&config);
      check(s, python, "Py_InitializeFromConfig");
      // The working folder never, PYTHONPATH's folders after the standard library's (they add
      // packages, they cannot stand in for `pickle`), as memrel's other Python parts see them.
      if (PyRun_SimpleString(
              "import os, sys\n"
              "_cwd = {os.getcwd(), os.path.realpath(os.getcwd())}\n"
              "_keep = lambda p: p and os.path.isabs(p) and os.path.realpath(p) not in _cwd\n"
              "sys.path[:] = [p for p in sys.path if _keep(p)] + [p for p in "
              "os.environ.get('PYTHONPATH', '').split(os.pathsep) if _keep(p) and p not in "
              "sys.path]\n"
              "_user = os.path.join(os.environ.get('HOME', ''), '.local', 'lib', "
              "'python%d.%d' % sys.version_info[:2], 'site-packages')\n"
              "if _keep(_user) and os.path.isdir(_user) and _user not in sys.path:\n"
              "    sys.path.append(_user)\n") != 0)
        throw std::runtime_error(python + ": could not set the module path");
      // The GIL is taken per call (Gil), from whichever thread calls.
      PyEval_SaveThread();
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  if (!failure.empty()) throw std::runtime_error(failure);
}

PyObject* take_exception() {
#if PY_VERSION_HEX >= 0x030C0000
  return PyErr_GetRaisedException();
#else
  PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
  PyErr_Fetch(&type, &value, &traceback);
  if (type == nullptr) return nullptr;
  PyErr_NormalizeException(&type, &value, &traceback);
  if (traceback != nullptr && value != nullptr) PyException_SetTraceback(value, traceback);
  Py_XDECREF(type);
  Py_XDECREF(traceback);
  return value;
#endif
}

std::string exception_line(PyObject* exception) {
  if (exception == nullptr) return "unknown Python error";
  std::string out = Py_TYPE(exception)->tp_name;
  Ref text(PyObject_Str(exception));
  if (text) {
    const char* utf8 = PyUnicode_AsUTF8(text.get());
    if (utf8 != nullptr && *utf8 != '\0') {
      std::string message(utf8);
      out += ": " + message.substr(0, message.find('\n'));
    }
  }
  PyErr_Clear();
  return out;
}

}  // namespace memrel::embedded_python
