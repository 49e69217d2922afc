# A library's CUDA side as a library of its own, loaded when first needed: libloom_cuda (the
# CUDA backend) for libloom, libloom_distributed_cuda for loom_distributed (CMakeLists.txt).
#
#   <target>          its host code, a trampoline for each function it calls in the CUDA
#                     objects, and the loader (src/base/cuda_loader.cpp): NEEDED has no CUDA
#                     library.
#   <target>_cuda     the .cu objects (all that calls the CUDA runtime); NEEDED <target> and
#                     libcudart; exports one table (names and addresses of those functions).
#
# The CUDA objects are compiled once, as an object library, with the target's flags; which
# functions cross is computed from the objects themselves (cmake/cuda_boundary.cmake), so a new
# kernel needs nothing here. LINK names what else the CUDA side links (libraries it calls).
function(loom_add_cuda_side target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;LINK")
  set(cuda ${target}_cuda)
  add_library(${cuda}_objects OBJECT ${arg_SOURCES})
  # The target's include folders and definitions, without linking it (its link waits for
  # these objects: cmake/cuda_boundary.cmake reads them).
  target_include_directories(${cuda}_objects PRIVATE
    $<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>)
  target_compile_definitions(${cuda}_objects PRIVATE
    $<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>)
  target_compile_features(${cuda}_objects PRIVATE cxx_std_20)
  target_compile_options(${cuda}_objects PRIVATE ${LOOM_CUDA_COMPILE_OPTIONS})
  target_link_libraries(${cuda}_objects PRIVATE CUDA::cudart)
  set_target_properties(${cuda}_objects PROPERTIES
    CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)

  # The boundary, from both sides' objects (their lists in files, written at generation).
  set(dir ${PROJECT_BINARY_DIR}/${cuda})
  file(GENERATE OUTPUT ${dir}/core_objects.txt CONTENT "$<TARGET_OBJECTS:${target}>")
  file(GENERATE OUTPUT ${dir}/cuda_objects.txt CONTENT "$<TARGET_OBJECTS:${cuda}_objects>")
  add_custom_command(
    OUTPUT ${dir}/stamp
    BYPRODUCTS ${dir}/boundary.txt ${dir}/trampolines.cpp ${dir}/functions.cpp
               ${dir}/exports.map
    COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM} -DREADELF=${CMAKE_READELF}
            -DCORE_OBJECTS=${dir}/core_objects.txt
            -DCUDA_OBJECTS=${dir}/cuda_objects.txt -DOUT_DIR=${dir}
            -DLIBRARY=$<TARGET_SONAME_FILE_NAME:${cuda}>
            -P ${PROJECT_SOURCE_DIR}/cmake/cuda_boundary.cmake
    DEPENDS $<TARGET_OBJECTS:${target}> $<TARGET_OBJECTS:${cuda}_objects>
            ${PROJECT_SOURCE_DIR}/cmake/cuda_boundary.cmake
    COMMENT "Finding the functions ${target} calls in ${cuda}"
    VERBATIM)

  # The target's side. Not linked as a target: that would order the target's compilation
  # after it, and it is made from the target's objects. A plain object file on the link line:
  # its trampolines are exported where the target's declarations say so (-Wl,--exclude-libs
  # hides archives' symbols, not objects').
  add_library(${cuda}_trampolines OBJECT ${dir}/trampolines.cpp)
  set_source_files_properties(${dir}/trampolines.cpp PROPERTIES OBJECT_DEPENDS ${dir}/stamp)
  set_target_properties(${cuda}_trampolines PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_link_options(${target} PRIVATE $<TARGET_OBJECTS:${cuda}_trampolines>)
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS
               $<TARGET_OBJECTS:${cuda}_trampolines>)
  target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})

  # The CUDA side, next to the target, found there by the loader (and by soname after that).
  add_library(${cuda} SHARED $<TARGET_OBJECTS:${cuda}_objects> ${dir}/functions.cpp)
  set_source_files_properties(${dir}/functions.cpp PROPERTIES OBJECT_DEPENDS ${dir}/stamp)
  set_target_properties(${cuda} PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 0
    LINK_DEPENDS ${dir}/exports.map INSTALL_RPATH_USE_LINK_PATH TRUE)
  # The target by its file, not as a target: the target's users depend on the CUDA side
  # (below), and the CUDA side linking the target would then depend on itself.
  set(link)
  foreach(library ${target} ${arg_LINK})
    list(APPEND link $<TARGET_LINKER_FILE:${library}>)
  endforeach()
  target_link_libraries(${cuda} PRIVATE ${link} CUDA::cudart ${CMAKE_DL_LIBS})
  add_dependencies(${cuda} ${target} ${arg_LINK})
  # As libloom: every symbol resolved at link time, static runtimes kept private; and only the
  # table exported, so that its addresses bind inside the CUDA side (not to the trampolines of
  # the same names).
  target_link_options(${cuda} PRIVATE -Wl,--no-undefined -Wl,--exclude-libs,ALL
                      -Wl,--version-script=${dir}/exports.map)

  # Whatever links the target in this build (tests, tools, the Python module) gets the CUDA
  # side built too: it is loaded, not linked, so no link line would ask for it.
  add_library(${cuda}_built INTERFACE)
  add_dependencies(${cuda}_built ${cuda})
  target_link_libraries(${target} INTERFACE $<BUILD_INTERFACE:${cuda}_built>)
  install(TARGETS ${cuda} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endfunction()
