// The one CPython interpreter a cell embeds (plugin side only: libmemrel_python.so).
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string>

namespace memrel::embedded_python {

// Starts the interpreter once per process as `python` would start (its prefix, its venv's
// pyvenv.cfg and so its site-packages), without installing signal handlers (the cell keeps its
// own) and with the GIL released afterwards. Throws std::runtime_error when it cannot start.
void start_interpreter(const std::string& python);

// Holds the GIL for a scope, from any thread.
class Gil {
 public:
  Gil() : state_(PyGILState_Ensure()) {}
  ~Gil() { PyGILState_Release(state_); }
  Gil(const Gil&) = delete;
  Gil& operator=(const Gil&) = delete;

 private:
  PyGILState_STATE state_;
};

// An owned reference, released at scope end (the GIL must be held then).
class Ref {
 public:
  explicit Ref(PyObject* p = nullptr) : p_(p) {}
  ~Ref() { Py_XDECREF(p_); }
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  PyObject* get() const { return p_; }
  PyObject* release() {
    PyObject* p = p_;
    p_ = nullptr;
    return p;
  }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  PyObject* p_;
};

// The raised exception, taken (the error indicator is cleared); null when none was raised.
PyObject* take_exception();

// "TypeName: first line of the message" of an exception.
std::string exception_line(PyObject* exception);

}  // namespace memrel::embedded_python
