# memrel's Python parts run as python -I -B (cli/python_module.cpp): a run writes no
# `__pycache__` beside the modules it reads. The build compiles them once instead, as pip does at
# install, so that each part does not compile them again in memory. The byte code lands in the
# source tree's `__pycache__` folders (ignored by git), where the build-tree memrel finds its
# modules; an installed memrel takes none (cmake/install.cmake) and compiles in memory.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  set(memrel_python_folders
      "${PROJECT_SOURCE_DIR}/scripts/memrel_report" "${PROJECT_SOURCE_DIR}/scripts/memrel_trace"
      "${PROJECT_SOURCE_DIR}/scripts/memrel_history" "${PROJECT_SOURCE_DIR}/scripts/memrel_outputs"
      "${PROJECT_SOURCE_DIR}/scripts/memrel_advise")
  set(memrel_python_files "${PROJECT_SOURCE_DIR}/scripts/memrel_entry.py"
                          "${PROJECT_SOURCE_DIR}/scripts/memrel_help.py")
  # Globbed when CMake configures, not at every build (no CONFIGURE_DEPENDS): a build with
  # nothing to do does nothing, not even a check of the globs, as the tests that run
  # scripts/build beside each other expect. A new module is compiled at the next configure.
  file(GLOB_RECURSE memrel_python_sources "${PROJECT_SOURCE_DIR}/scripts/memrel_*/*.py")
  set(stamp "${CMAKE_CURRENT_BINARY_DIR}/python-bytecode.stamp")
  add_custom_command(
    OUTPUT "${stamp}"
    COMMAND "${Python3_EXECUTABLE}" -m compileall -q ${memrel_python_folders}
            ${memrel_python_files}
    COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
    DEPENDS ${memrel_python_sources} ${memrel_python_files}
    COMMENT "Compiling memrel's Python parts to byte code"
    VERBATIM)
  add_custom_target(memrel_python_bytecode ALL DEPENDS "${stamp}")
endif()
