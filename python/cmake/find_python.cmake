# Finds the Python interpreter, its headers and pybind11 for the bindings (python/), and sets
# LOOM_PYTHON_FOUND. Debian's /usr/bin/python3 comes first: the default python3 of a machine
# may be another one (pyenv, a venv) that lacks the Debian packages (numpy, pybind11). Where
# /usr/bin/python3 has no NumPy or pybind11 (the GPU machine: pip packages of the python3 on
# PATH), the python3 on PATH is taken, and pybind11's CMake files come from
# `python3 -m pybind11 --cmakedir`. Setting Python3_EXECUTABLE chooses the interpreter.
set(LOOM_PYTHON_FOUND OFF)
if(NOT Python3_EXECUTABLE)
  find_program(_loom_path_python3 python3)
  foreach(_loom_py /usr/bin/python3 ${_loom_path_python3})
    if(EXISTS "${_loom_py}")
      execute_process(COMMAND "${_loom_py}" -c "import numpy, pybind11"
                      RESULT_VARIABLE _loom_py_rc OUTPUT_QUIET ERROR_QUIET)
      if(_loom_py_rc EQUAL 0)
        set(Python3_EXECUTABLE "${_loom_py}" CACHE FILEPATH "Python of the Loom bindings")
        break()
      endif()
    endif()
  endforeach()
endif()
if(Python3_EXECUTABLE)
  find_package(Python3 COMPONENTS Interpreter Development.Module QUIET)
endif()
if(Python3_FOUND)
  # pybind11 picks the interpreter found above (its "new" FindPython mode).
  set(PYTHON_EXECUTABLE "${Python3_EXECUTABLE}")
  execute_process(COMMAND "${Python3_EXECUTABLE}" -m pybind11 --cmakedir
                  OUTPUT_VARIABLE _loom_pybind11_dir OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET)
  find_package(pybind11 CONFIG QUIET HINTS "${_loom_pybind11_dir}")
  if(pybind11_FOUND)
    set(LOOM_PYTHON_FOUND ON)
  endif()
endif()
if(NOT LOOM_PYTHON_FOUND)
  message(STATUS "Loom: no Python module (needs a python3 with NumPy and pybind11, its "
                 "headers and pybind11's CMake files; Python3_EXECUTABLE picks one)")
endif()
