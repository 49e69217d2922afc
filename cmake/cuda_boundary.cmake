# The boundary between a library and its CUDA side (libloom / libloom_cuda, loom_distributed /
# libloom_distributed_cuda; cmake -P, run by cmake/cuda_backend.cmake when an object of either
# side changes): the functions the host objects call and only the CUDA objects define, and the
# functions of the public API the CUDA objects define. Writes into OUT_DIR:
#   boundary.txt     the names, one per line, sorted;
#   trampolines.cpp  the host side: one `jmp *slot` per name, each slot first pointing at a stub
#                    that loads the CUDA side on the way (src/base/cuda_loader.cpp fills them);
#   functions.cpp    the CUDA side: the table of the names and their addresses, the one thing
#                    it exports;
#   exports.map      the CUDA side's version script: that table, everything else local.
# Inputs: NM, READELF, CORE_OBJECTS and CUDA_OBJECTS (files listing the objects), OUT_DIR,
# LIBRARY (the file name the CUDA side is loaded by).
cmake_minimum_required(VERSION 3.25)

file(READ "${CORE_OBJECTS}" core_objects)
file(READ "${CUDA_OBJECTS}" cuda_objects)

# `nm -P` prints "name type value size" per symbol ("name U" when undefined).
function(symbols out_var)
  execute_process(COMMAND "${NM}" -P ${ARGN} OUTPUT_VARIABLE text RESULT_VARIABLE status
                  COMMAND_ERROR_IS_FATAL ANY)
  string(REGEX MATCHALL "[^\n]+" lines "${text}")
  set(${out_var} "${lines}" PARENT_SCOPE)
endfunction()

# Defined by some core object: not a boundary name even when another core object leaves it
# undefined. The names are keys of variables: a lookup costs no scan of a list.
symbols(core_defined --defined-only ${core_objects})
foreach(line IN LISTS core_defined)
  if(line MATCHES "^([^ ]+) [^U] ")
    set("defined:${CMAKE_MATCH_1}" TRUE)
  endif()
endforeach()
symbols(core_undefined --undefined-only ${core_objects})
foreach(line IN LISTS core_undefined)
  # (Nested: the condition's ${CMAKE_MATCH_1} is expanded before MATCHES runs.)
  if(line MATCHES "^([^ ]+) U")
    if(NOT DEFINED "defined:${CMAKE_MATCH_1}")
      set("wanted:${CMAKE_MATCH_1}" TRUE)
    endif()
  endif()
endforeach()

# What crosses: the functions of the CUDA objects that the core calls, and those the library
# exports (the public API some .cu files define, e.g. CudaExecutor's members): the trampolines
# stand for them in the core's library, with the visibility of their definitions. Only
# functions: a trampoline forwards a call, it cannot stand for an object (a class whose vtable
# would cross keeps its key function in the core, as src/base/cuda_executor.cpp does).
# `readelf -sW` prints "num: value size type bind visibility section name" per symbol.
execute_process(COMMAND "${READELF}" -sW ${cuda_objects} OUTPUT_VARIABLE text
                COMMAND_ERROR_IS_FATAL ANY)
string(REGEX MATCHALL "[^\n]+" cuda_defined "${text}")
set(names "")
set(data "")
foreach(line IN LISTS cuda_defined)
  if(NOT line MATCHES
     "^ *[0-9]+: [0-9a-f]+ +[0-9a-fx]+ ([A-Z_]+) +(GLOBAL|WEAK) +([A-Z]+) +([A-Z0-9]+) (.+)$")
    continue()
  endif()
  set(type "${CMAKE_MATCH_1}")
  set(visibility "${CMAKE_MATCH_3}")
  set(name "${CMAKE_MATCH_5}")
  if(CMAKE_MATCH_4 STREQUAL "UND" OR DEFINED "defined:${name}")
    continue()
  endif()
  if(NOT DEFINED "wanted:${name}" AND NOT visibility STREQUAL "DEFAULT")
    continue()
  endif()
  if(NOT type STREQUAL "FUNC")
    # Exported data of the CUDA objects alone (NVTX's globals in CUB) stays theirs.
    if(DEFINED "wanted:${name}")
      list(APPEND data "${name}")
    endif()
  elseif(visibility STREQUAL "DEFAULT")
    set("exported:${name}" TRUE)
    list(APPEND names "${name}")
  else()
    list(APPEND names "${name}")
  endif()
endforeach()
list(REMOVE_DUPLICATES names)
list(SORT names)
if(data)
  list(REMOVE_DUPLICATES data)
  list(JOIN data "\n  " data)
  message(FATAL_ERROR "Data defined only by the CUDA objects is used by the library that "
                      "loads them (a trampoline forwards calls only; keep each "
                      "on one side):\n  ${data}")
endif()

list(LENGTH names count)
set(boundary "")
set(boundary_names "")
set(jumps "")
set(slots "")
set(table "")
set(index 0)
foreach(name IN LISTS names)
  string(APPEND boundary "${name}\n")
  string(APPEND boundary_names "    \"${name}\",\n")
  # The trampoline, and where its slot points until the library is loaded: a stub that hands
  # the slot's number to loom_cuda_lazy (src/base/cuda_loader.cpp).
  if(DEFINED "exported:${name}")
    set(hidden "")
  else()
    set(hidden ".hidden ${name}\\n")
  endif()
  string(APPEND jumps
         "    \".globl ${name}\\n${hidden}.type ${name}, @function\\n.p2align 4\\n${name}:\\n\"\n"
         "    \"    jmp *loom_cuda_slots+${index}*8(%rip)\\n.size ${name}, .-${name}\\n\"\n"
         "    \"loom_cuda_lazy_${index}:\\n    push $${index}\\n    jmp loom_cuda_lazy\\n\"\n")
  string(APPEND slots "    \"    .quad loom_cuda_lazy_${index}\\n\"\n")
  string(APPEND table "    \".quad ${name}\\n\"\n")
  math(EXPR index "${index} + 1")
endforeach()

set(header "// Generated by cmake/cuda_boundary.cmake from the objects of ${LIBRARY} and its users.")
file(WRITE "${OUT_DIR}/boundary.txt.new" "${boundary}")
file(WRITE "${OUT_DIR}/trampolines.cpp.new" "${header}
#include <cstddef>

extern \"C\" {
__attribute__((visibility(\"hidden\"))) extern const char loom_cuda_library[] = \"${LIBRARY}\";
__attribute__((visibility(\"hidden\"))) extern const std::size_t loom_cuda_slot_count = ${count};
__attribute__((visibility(\"hidden\"))) extern const char* const loom_cuda_slot_names[] = {
${boundary_names}    nullptr};
}

__asm__(\".pushsection .text\\n\"
${jumps}    \".popsection\\n\"
    \".pushsection .data\\n.p2align 3\\n\"
    \".globl loom_cuda_slots\\n.hidden loom_cuda_slots\\n.type loom_cuda_slots, @object\\n\"
    \"loom_cuda_slots:\\n\"
${slots}    \".size loom_cuda_slots, .-loom_cuda_slots\\n.popsection\\n\");
")
file(WRITE "${OUT_DIR}/functions.cpp.new" "${header}
extern \"C\" {
__attribute__((visibility(\"default\"))) extern const char* const loom_cuda_function_names[] = {
${boundary_names}    nullptr};
}

__asm__(\".pushsection .data.rel.ro,\\\"aw\\\"\\n.p2align 3\\n\"
        \".globl loom_cuda_functions\\n.type loom_cuda_functions, @object\\n\"
        \"loom_cuda_functions:\\n\"
${table}        \".size loom_cuda_functions, .-loom_cuda_functions\\n.popsection\\n\");
")
file(WRITE "${OUT_DIR}/exports.map.new"
     "{\n  global: loom_cuda_functions; loom_cuda_function_names;\n  local: *;\n};\n")
# Rewritten only when changed: an unchanged boundary costs no recompilation of either side.
foreach(file boundary.txt trampolines.cpp functions.cpp exports.map)
  file(COPY_FILE "${OUT_DIR}/${file}.new" "${OUT_DIR}/${file}" ONLY_IF_DIFFERENT)
  file(REMOVE "${OUT_DIR}/${file}.new")
endforeach()
file(TOUCH "${OUT_DIR}/stamp")
