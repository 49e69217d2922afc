# libloom_cuda: the CUDA backend as a library of its own, loaded by libloom when the first
# CudaExecutor is made (src/base/cuda_loader.cpp). Included by CMakeLists.txt ("library") with
# LOOM_CUDA_SOURCES and LOOM_CUDA_COMPILE_OPTIONS set.
#
#   libloom       core + reference + OpenMP, and a trampoline for each function it calls in the
#                 CUDA objects: NEEDED has no CUDA library.
#   libloom_cuda  every .cu object (all that calls the CUDA runtime); NEEDED libloom and
#                 libcudart; exports one table (names and addresses of those functions).
#
# The CUDA objects are compiled once, as an object library, with libloom's flags; which
# functions cross is computed from the objects themselves (cmake/cuda_boundary.cmake), so a new
# kernel needs nothing here.

add_library(loom_cuda_objects OBJECT ${LOOM_CUDA_SOURCES})
# libloom's include folders and compile flags, without linking it (libloom's link waits for
# these objects: cmake/cuda_boundary.cmake reads them).
target_include_directories(loom_cuda_objects PRIVATE
  $<TARGET_PROPERTY:loom,INCLUDE_DIRECTORIES>)
target_compile_features(loom_cuda_objects PRIVATE cxx_std_20)
target_compile_options(loom_cuda_objects PRIVATE ${LOOM_CUDA_COMPILE_OPTIONS})
target_link_libraries(loom_cuda_objects PRIVATE CUDA::cudart)
set_target_properties(loom_cuda_objects PROPERTIES
  CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)

# The boundary, from both sides' objects (object lists in files: a command line of hundreds of
# paths is no problem, but a CMake list in one would be).
set(_dir ${PROJECT_BINARY_DIR}/cuda_backend)
file(GENERATE OUTPUT ${_dir}/core_objects.txt CONTENT "$<TARGET_OBJECTS:loom>")
file(GENERATE OUTPUT ${_dir}/cuda_objects.txt CONTENT "$<TARGET_OBJECTS:loom_cuda_objects>")
add_custom_command(
  OUTPUT ${_dir}/stamp
  BYPRODUCTS ${_dir}/boundary.txt ${_dir}/trampolines.cpp ${_dir}/functions.cpp
             ${_dir}/exports.map
  COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM} -DCORE_OBJECTS=${_dir}/core_objects.txt
          -DCUDA_OBJECTS=${_dir}/cuda_objects.txt -DOUT_DIR=${_dir}
          -P ${PROJECT_SOURCE_DIR}/cmake/cuda_boundary.cmake
  DEPENDS $<TARGET_OBJECTS:loom> $<TARGET_OBJECTS:loom_cuda_objects>
          ${PROJECT_SOURCE_DIR}/cmake/cuda_boundary.cmake
  COMMENT "Finding the functions libloom calls in libloom_cuda"
  VERBATIM)

# libloom's side. Not linked as a target: that would order libloom's compilation after it, and
# it is made from libloom's objects. A plain object file on libloom's link line: its
# trampolines are exported where the core's declarations say so (-Wl,--exclude-libs hides
# archives' symbols, not objects').
add_library(loom_cuda_trampolines OBJECT ${_dir}/trampolines.cpp)
set_source_files_properties(${_dir}/trampolines.cpp PROPERTIES OBJECT_DEPENDS ${_dir}/stamp)
set_target_properties(loom_cuda_trampolines PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_link_options(loom PRIVATE $<TARGET_OBJECTS:loom_cuda_trampolines>)
set_property(TARGET loom APPEND PROPERTY LINK_DEPENDS $<TARGET_OBJECTS:loom_cuda_trampolines>)
target_link_libraries(loom PRIVATE ${CMAKE_DL_LIBS})

# libloom_cuda: next to libloom, found there by the loader (and by soname after that).
add_library(loom_cuda SHARED $<TARGET_OBJECTS:loom_cuda_objects> ${_dir}/functions.cpp)
add_library(Loom::cuda ALIAS loom_cuda)
set_source_files_properties(${_dir}/functions.cpp PROPERTIES OBJECT_DEPENDS ${_dir}/stamp)
set_target_properties(loom_cuda PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 0
  EXPORT_NAME cuda LINK_DEPENDS ${_dir}/exports.map INSTALL_RPATH_USE_LINK_PATH TRUE)
# libloom by its file, not as a target: libloom's users depend on libloom_cuda (below), and
# libloom_cuda linking the target would depend on itself.
target_link_libraries(loom_cuda PRIVATE $<TARGET_LINKER_FILE:loom> CUDA::cudart ${CMAKE_DL_LIBS})
add_dependencies(loom_cuda loom)
# As libloom: every symbol resolved at link time, static runtimes kept private; and only the
# table exported, so that its addresses bind inside libloom_cuda (not to libloom's
# trampolines of the same names).
target_link_options(loom_cuda PRIVATE -Wl,--no-undefined -Wl,--exclude-libs,ALL
                    -Wl,--version-script=${_dir}/exports.map)
# Whatever links libloom in this build (tests, tools, the Python module) gets libloom_cuda
# built too: it is loaded, not linked, so no link line would ask for it.
add_library(loom_cuda_built INTERFACE)
add_dependencies(loom_cuda_built loom_cuda)
target_link_libraries(loom INTERFACE $<BUILD_INTERFACE:loom_cuda_built>)
# Only the loader needs the name: the other objects' flags (and ccache entries) stay the same.
set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/base/cuda_loader.cpp APPEND PROPERTY
  COMPILE_DEFINITIONS LOOM_CUDA_SEPARATE=1
                      LOOM_CUDA_LIBRARY="$<TARGET_SONAME_FILE_NAME:loom_cuda>")
install(TARGETS loom_cuda EXPORT LoomTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
