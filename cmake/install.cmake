# What `cmake --install` puts under the prefix besides the executables and plugins (whose rules
# sit next to their targets), laid out as platform/install_layout.cpp looks for it at run time:
#   bin/memrel, bin/memrel_bench
#   lib/memrel/            the torch plugin and the pluggable examples (LIBDIR/memrel)
#   share/memrel/          workloads/, backends/, trace-sources/, advise/, python/ (the Python packages)
#   share/doc/memrel/      LICENSE, README.md, docs/
# No CMake package is exported: nothing links against memrel. Its extension points are data
# (workloads, backend files) and shared libraries that export PyTorch's pluggable-allocator
# symbols and know nothing of memrel (docs/pluggable-backends.md).
set(MEMREL_INSTALL_DATADIR "${CMAKE_INSTALL_DATADIR}/memrel")

install(DIRECTORY
          "${PROJECT_SOURCE_DIR}/benchmarks/workloads"
          "${PROJECT_SOURCE_DIR}/benchmarks/backends"
          "${PROJECT_SOURCE_DIR}/benchmarks/trace-sources"
          "${PROJECT_SOURCE_DIR}/benchmarks/advise"
        DESTINATION "${MEMREL_INSTALL_DATADIR}" COMPONENT memrel)

# The report, the trace importer and the history's change points, run by `memrel` as
# python3 -I memrel_entry.py, which puts this folder on the module path (cli/python_module.cpp).
install(DIRECTORY
          "${PROJECT_SOURCE_DIR}/scripts/memrel_report"
          "${PROJECT_SOURCE_DIR}/scripts/memrel_trace"
          "${PROJECT_SOURCE_DIR}/scripts/memrel_history"
          "${PROJECT_SOURCE_DIR}/scripts/memrel_outputs"
          "${PROJECT_SOURCE_DIR}/scripts/memrel_advise"
        DESTINATION "${MEMREL_INSTALL_DATADIR}/python" COMPONENT memrel
        PATTERN "__pycache__" EXCLUDE
        PATTERN "*.pyc" EXCLUDE)
install(FILES "${PROJECT_SOURCE_DIR}/scripts/memrel_help.py" "${PROJECT_SOURCE_DIR}/scripts/memrel_entry.py"
        DESTINATION "${MEMREL_INSTALL_DATADIR}/python" COMPONENT memrel)

install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" "${PROJECT_SOURCE_DIR}/README.md"
        DESTINATION "${CMAKE_INSTALL_DOCDIR}" COMPONENT memrel)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/" DESTINATION "${CMAKE_INSTALL_DOCDIR}/docs"
        COMPONENT memrel)
