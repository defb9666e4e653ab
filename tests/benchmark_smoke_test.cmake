# The memrel_bench checks that ctest runs (registered in benchmarks/CMakeLists.txt, label cpu):
#
#   cmake -DCHECK=quick-json -DMEMREL_BENCH=BIN -DBACKEND=host-malloc -DOUT=FILE.json -P THIS
#     runs the quick set and checks that the JSON has the shape docs/benchmarks.md promises the
#     plots and the gate: names, counters, repetitions and aggregates, and that it is strict JSON
#     (CMake's parser, like nlohmann::json, refuses the NaN that Google Benchmark 1.7.1 writes).
#   cmake -DCHECK=unknown-backend -DMEMREL_BENCH=BIN -P THIS
#     an unknown backend exits exactly 2 with one line naming the valid backends.
cmake_minimum_required(VERSION 3.25)

function(fail what)
  message(FATAL_ERROR "memrel_bench smoke test (${CHECK}): ${what}")
endfunction()

if(CHECK STREQUAL "unknown-backend")
  execute_process(COMMAND ${MEMREL_BENCH} --backend no-such-backend
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "2")
    fail("exit status ${rc}, expected 2; stderr: ${err}")
  endif()
  if(NOT err MATCHES "^memrel_bench: unknown backend 'no-such-backend' \\(valid: [^\n]*host-malloc[^\n]*\\)\n$")
    fail("expected one line naming the valid backends, got: ${err}")
  endif()
  return()
endif()

if(NOT CHECK STREQUAL "quick-json")
  fail("unknown CHECK '${CHECK}'")
endif()

file(REMOVE ${OUT})
execute_process(COMMAND ${MEMREL_BENCH} --backend ${BACKEND} --quick --benchmark_out=${OUT}
                        --benchmark_out_format=json
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc STREQUAL "0")
  fail("exit status ${rc}; stderr: ${err}")
endif()
file(READ ${OUT} json)

string(JSON format ERROR_VARIABLE parse_error GET "${json}" context memrel_bench_format)
if(parse_error)
  fail("${OUT} is not strict JSON or lacks context.memrel_bench_format: ${parse_error}")
endif()
string(JSON backend GET "${json}" context memrel_backend)
if(NOT format STREQUAL "memrel.bench/1" OR NOT backend STREQUAL BACKEND)
  fail("context says format '${format}', backend '${backend}'")
endif()

# Every run counts towards its name; every name must have 5 repetitions and 4 aggregates.
set(name_pattern "^(pair|alloc|free|release|churn)/${BACKEND}/(warm|cold|seed[0-9]+)/[0-9]+(/iterations:[0-9]+)?/manual_time$")
set(names "")
string(JSON count LENGTH "${json}" benchmarks)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON entry GET "${json}" benchmarks ${i})
  string(JSON run_name GET "${entry}" run_name)
  string(JSON run_type GET "${entry}" run_type)
  if(NOT run_name MATCHES "${name_pattern}")
    fail("benchmarks[${i}]: run_name '${run_name}' is not <operation>/<backend>/<mode>/<bytes>")
  endif()
  set(operation ${CMAKE_MATCH_1})
  string(JSON error_message ERROR_VARIABLE error_message_lookup GET "${entry}" error_message)
  if(NOT error_message_lookup)  # found: the run failed
    fail("${run_name}: failed: ${error_message}")
  endif()
  string(MAKE_C_IDENTIFIER "${run_name}" key)
  if(NOT DEFINED runs_${key})
    list(APPEND names ${run_name})
    set(runs_${key} 0)
    set(aggregates_${key} "")
  endif()
  if(run_type STREQUAL "iteration")
    math(EXPR runs_${key} "${runs_${key}} + 1")
    set(wanted bytes items_per_second max_bytes_used allocs_per_iter)
    if(operation STREQUAL "churn")
      list(APPEND wanted peak_reserved peak_requested ns_per_op steps)
    else()
      list(APPEND wanted reserved overhead peak_reserved)
    endif()
    foreach(field IN LISTS wanted)
      string(JSON value ERROR_VARIABLE missing GET "${entry}" ${field})
      if(missing)
        fail("${run_name} (repetition ${runs_${key}}): no ${field}")
      endif()
    endforeach()
  else()
    string(JSON aggregate GET "${entry}" aggregate_name)
    list(APPEND aggregates_${key} ${aggregate})
  endif()
endforeach()

list(LENGTH names name_count)
# --quick: 3 operations x 2 modes x 4 sizes, release x 4 sizes, churn x 1 seed.
if(NOT name_count EQUAL 29)
  fail("${name_count} benchmarks, expected 29: ${names}")
endif()
foreach(run_name IN LISTS names)
  string(MAKE_C_IDENTIFIER "${run_name}" key)
  if(NOT runs_${key} EQUAL 5)
    fail("${run_name}: ${runs_${key}} repetitions, expected 5")
  endif()
  foreach(aggregate mean median stddev cv)
    if(NOT aggregate IN_LIST aggregates_${key})
      fail("${run_name}: no ${aggregate} aggregate (has: ${aggregates_${key}})")
    endif()
  endforeach()
endforeach()
message(STATUS "memrel_bench --backend ${BACKEND} --quick: ${name_count} benchmarks, each with 5 repetitions and mean/median/stddev/cv")
