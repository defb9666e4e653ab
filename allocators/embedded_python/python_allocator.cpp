#include "allocators/embedded_python/python_allocator.hpp"

#include <stdexcept>
#include <unordered_map>

#include "allocators/embedded_python/embedded_interpreter.hpp"

namespace memrel {
namespace {

using embedded_python::exception_line;
using embedded_python::Gil;
using embedded_python::Ref;
using embedded_python::take_exception;

std::string versions_text;

// The named attribute of `object`; throws naming it when missing.
PyObject* attribute(PyObject* object, const char* name, const std::string& owner) {
  PyObject* a = PyObject_GetAttrString(object, name);
  if (a == nullptr) {
    Ref e(take_exception());
    throw std::runtime_error(owner + " has no " + name + ": " + exception_line(e.get()));
  }
  return a;
}

std::optional<std::uint64_t> optional_bytes(PyObject* item) {
  if (item == Py_None) return std::nullopt;
  unsigned long long v = PyLong_AsUnsignedLongLong(item);
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return std::nullopt;
  }
  return v;
}

class PythonAllocator : public Allocator {
 public:
  PythonAllocator(const std::string& module_name, const std::string& source,
                  const std::string& backend)
      : name_(backend) {
    Gil gil;
    Ref code(Py_CompileString(source.c_str(), (module_name + ".py").c_str(), Py_file_input));
    if (!code) fail("compiling " + module_name);
    Ref module(PyImport_ExecCodeModule(module_name.c_str(), code.get()));
    if (!module) fail("importing " + module_name);
    Ref make(attribute(module.get(), "make_backend", module_name));
    Ref arg(PyUnicode_FromString(backend.c_str()));
    backend_ = PyObject_CallOneArg(make.get(), arg.get());
    if (backend_ == nullptr) fail("starting " + backend);
    allocate_ = attribute(backend_, "allocate", backend);
    free_ = attribute(backend_, "free", backend);
    release_ = attribute(backend_, "release", backend);
    synchronize_ = attribute(backend_, "synchronize", backend);
    fill_ = attribute(backend_, "fill", backend);
    usage_ = attribute(backend_, "usage", backend);
    is_out_of_memory_ = attribute(backend_, "is_out_of_memory", backend);
    record_versions();
  }

  ~PythonAllocator() override {
    Gil gil;
    // Blocks the cell never freed go back to the framework; a framework's error here has no
    // one to go to (a destructor must not throw), and the process is ending its cell anyway.
    for (auto& [p, handle] : live_) {
      try {
        drop(handle);
      } catch (const std::exception&) {
      }
    }
    for (PyObject* o :
         {allocate_, free_, release_, synchronize_, fill_, usage_, is_out_of_memory_, backend_})
      Py_XDECREF(o);
    PyErr_Clear();
  }

  void* allocate(std::size_t bytes) override {
    // Zero bytes: no framework object (a zero-sized array has no buffer to point at).
    if (bytes == 0) return nullptr;
    Gil gil;
    Ref n(PyLong_FromSize_t(bytes));
    Ref result(PyObject_CallOneArg(allocate_, n.get()));
    if (!result) {
      Ref e(take_exception());
      std::string line = exception_line(e.get());
      if (out_of_memory(e.get())) throw OutOfMemory(bytes, line);
      throw std::runtime_error(name_ + " allocate(" + std::to_string(bytes) + "): " + line);
    }
    if (!PyTuple_Check(result.get()) || PyTuple_GET_SIZE(result.get()) != 2)
      throw std::runtime_error(name_ + " allocate() did not return (handle, pointer)");
    void* p = PyLong_AsVoidPtr(PyTuple_GET_ITEM(result.get(), 1));
    if (p == nullptr) {
      PyErr_Clear();
      throw std::runtime_error(name_ + " allocate(" + std::to_string(bytes) +
                               ") gave a null device pointer");
    }
    PyObject* handle = PyTuple_GET_ITEM(result.get(), 0);
    Py_INCREF(handle);
    if (!live_.emplace(p, handle).second) {
      Py_DECREF(handle);
      throw std::runtime_error(name_ + " gave pointer of a live block again");
    }
    return p;
  }

  void deallocate(void* p, std::size_t bytes) override {
    (void)bytes;
    if (p == nullptr) return;
    Gil gil;
    auto found = live_.find(p);
    if (found == live_.end()) throw std::invalid_argument(name_ + ": free of an unknown pointer");
    PyObject* handle = found->second;
    live_.erase(found);
    drop(handle);
  }

  void release() override { call_noargs(release_, "release()"); }
  void synchronize() override { call_noargs(synchronize_, "synchronize()"); }

  void fill(void* p, std::size_t bytes) override {
    if (p == nullptr) return;
    Gil gil;
    auto found = live_.find(p);
    if (found == live_.end()) throw std::invalid_argument(name_ + ": fill of an unknown pointer");
    Ref ptr(PyLong_FromVoidPtr(p));
    Ref n(PyLong_FromSize_t(bytes));
    Ref r(PyObject_CallFunctionObjArgs(fill_, found->second, ptr.get(), n.get(), nullptr));
    if (!r) fail("fill()");
  }

  Usage usage() const override {
    Gil gil;
    Ref r(PyObject_CallNoArgs(usage_));
    if (!r) fail("usage()");
    if (!PyTuple_Check(r.get()) || PyTuple_GET_SIZE(r.get()) != 2)
      throw std::runtime_error(name_ + " usage() did not return (allocated, reserved)");
    return {optional_bytes(PyTuple_GET_ITEM(r.get(), 0)),
            optional_bytes(PyTuple_GET_ITEM(r.get(), 1))};
  }

  MemorySpace space() const override { return MemorySpace::kDevice; }

 private:
  // The GIL is held. The raised exception becomes a one-line error; an import error means the
  // framework is not there, which is the backend's unavailability, not a failure.
  [[noreturn]] void fail(const std::string& what) const {
    Ref e(take_exception());
    std::string line = what + ": " + exception_line(e.get());
    if (e && PyErr_GivenExceptionMatches(e.get(), PyExc_ImportError))
      throw BackendUnavailable(line);
    throw std::runtime_error(name_ + ": " + line);
  }

  bool out_of_memory(PyObject* exception) const {
    if (exception == nullptr) return false;
    Ref r(PyObject_CallOneArg(is_out_of_memory_, exception));
    bool yes = r && PyObject_IsTrue(r.get()) == 1;
    PyErr_Clear();
    return yes;
  }

  // The GIL is held: the framework's free (if it has one), then the last reference.
  void drop(PyObject* handle) {
    if (free_ != Py_None) {
      Ref r(PyObject_CallOneArg(free_, handle));
      if (!r) {
        Py_DECREF(handle);
        fail("free()");
      }
    }
    Py_DECREF(handle);
  }

  void call_noargs(PyObject* fn, const char* what) {
    Gil gil;
    Ref r(PyObject_CallNoArgs(fn));
    if (!r) fail(what);
  }

  void record_versions() {
    Ref fn(PyObject_GetAttrString(backend_, "versions"));
    Ref d(fn ? PyObject_CallNoArgs(fn.get()) : nullptr);
    PyErr_Clear();
    if (!d || !PyDict_Check(d.get())) return;
    PyObject *key = nullptr, *value = nullptr;
    Py_ssize_t pos = 0;
    while (PyDict_Next(d.get(), &pos, &key, &value)) {
      const char* k = PyUnicode_AsUTF8(key);
      Ref v(PyObject_Str(value));
      const char* vs = v ? PyUnicode_AsUTF8(v.get()) : nullptr;
      if (k != nullptr && vs != nullptr &&
          versions_text.find(std::string(k) + "=") == std::string::npos)
        versions_text += std::string(k) + "=" + vs + "\n";
    }
    PyErr_Clear();
  }

  std::string name_;
  PyObject* backend_ = nullptr;
  PyObject* allocate_ = nullptr;
  PyObject* free_ = nullptr;
  PyObject* release_ = nullptr;
  PyObject* synchronize_ = nullptr;
  PyObject* fill_ = nullptr;
  PyObject* usage_ = nullptr;
  PyObject* is_out_of_memory_ = nullptr;
  std::unordered_map<void*, PyObject*> live_;  // device pointer -> the framework's object
};

}  // namespace

std::unique_ptr<Allocator> make_python_allocator_in_plugin(const std::string& python,
                                                           const std::string& module_name,
                                                           const std::string& module_source,
                                                           const std::string& backend) {
  embedded_python::start_interpreter(python);
  return std::make_unique<PythonAllocator>(module_name, module_source, backend);
}

const std::string& loaded_versions_text() { return versions_text; }

}  // namespace memrel
