# IN's text as the C++ constant SYMBOL in the header OUT, so that a family's Python module
# travels inside memrel (nothing to find at run time). Included by memrel_embed_python_module
# (CMakeLists.txt here), or run alone: cmake -DIN=FILE -DOUT=HEADER -DSYMBOL=NAME -P embed_text.cmake
file(READ "${IN}" content)
if(content MATCHES "\\)memrel_py\"")
  message(FATAL_ERROR "${IN} contains the raw string's end marker )memrel_py\"")
endif()
file(WRITE "${OUT}.tmp"
  "// Generated from ${IN} when CMake configures; edit that file.\n#pragma once\n\n"
  "namespace memrel {\ninline constexpr const char ${SYMBOL}[] = R\"memrel_py(${content})memrel_py\";\n}\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
