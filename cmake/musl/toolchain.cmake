# Shared by the musl toolchains (cmake/x86_64-linux-musl.cmake,
# cmake/aarch64-linux-musl.cmake), which set CMAKE_SYSTEM_PROCESSOR and the
# GCC to drive: a glibc-targeting GCC (the host's, or Debian's cross compiler)
# with Debian's musl (musl-dev, or musl-dev:<arch> through multiarch) for the C
# library, and that GCC's libstdc++ and libgcc linked in statically. The
# result needs nothing but musl's libc and Node-API, which is what an Alpine
# Node provides. This is what Debian's musl-gcc wrapper does with its specs
# file, plus C++: the libstdc++ headers were configured for glibc;
# cmake/musl/libstdcxx-compat.h bridges the two spellings they use, and
# cmake/musl/glibc_shims.cc (added by CMakeLists.txt when POWPRIME_MUSL is set)
# the glibc symbols the static archives and headers call.
set(CMAKE_SYSTEM_NAME Linux)
set(POWPRIME_MUSL ON)
set(POWPRIME_MUSL_LIB /usr/lib/${CMAKE_SYSTEM_PROCESSOR}-linux-musl)
set(MUSL_INCLUDE /usr/include/${CMAKE_SYSTEM_PROCESSOR}-linux-musl)

execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=include OUTPUT_VARIABLE GCC_INCLUDE OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-libgcc-file-name OUTPUT_VARIABLE LIBGCC OUTPUT_STRIP_TRAILING_WHITESPACE)
get_filename_component(POWPRIME_GCC_LIBDIR ${LIBGCC} DIRECTORY)
# The compiler's own C++ header folders, in its order, from its search list
# (they differ between the host and a cross compiler).
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -xc++ -E -v /dev/null OUTPUT_QUIET ERROR_VARIABLE SEARCH)
string(REGEX REPLACE ".*#include <\\.\\.\\.> search starts here:\n" "" SEARCH "${SEARCH}")
string(REGEX REPLACE "End of search list\\..*" "" SEARCH "${SEARCH}")
string(REGEX REPLACE "\n" ";" SEARCH "${SEARCH}")
set(CXX_INCLUDES)
foreach(dir ${SEARCH})
  string(STRIP "${dir}" dir)
  if(dir MATCHES "/c\\+\\+/")
    get_filename_component(dir "${dir}" REALPATH)
    list(APPEND CXX_INCLUDES "SHELL:-isystem ${dir}")
  endif()
endforeach()

# The C++ headers first (they #include_next the C ones), then GCC's own
# (stddef.h, intrinsics), then musl's instead of glibc's.
# (CMakeLists.txt applies them to its targets: cmake-js sets CMAKE_CXX_FLAGS itself.)
# ("SHELL:" keeps CMake from merging the repeated -isystem words.)
set(POWPRIME_MUSL_CXX_FLAGS -nostdinc
  ${CXX_INCLUDES}
  "SHELL:-isystem ${GCC_INCLUDE}"
  "SHELL:-isystem ${MUSL_INCLUDE}"
  "SHELL:-include ${CMAKE_CURRENT_LIST_DIR}/libstdcxx-compat.h")
# musl's start files and libc, GCC's own around them; libstdc++, libgcc_eh and
# libgcc from archives (their debug sections left out). Node-API symbols stay
# undefined for Node to provide.
set(POWPRIME_MUSL_LINK_PREFIX "-Wl,--strip-debug ${POWPRIME_MUSL_LIB}/crti.o ${POWPRIME_GCC_LIBDIR}/crtbeginS.o")
set(POWPRIME_MUSL_LINK_SUFFIX "${POWPRIME_GCC_LIBDIR}/libstdc++.a ${POWPRIME_GCC_LIBDIR}/libgcc_eh.a ${POWPRIME_GCC_LIBDIR}/libgcc.a -L${POWPRIME_MUSL_LIB} -lc ${POWPRIME_GCC_LIBDIR}/crtendS.o ${POWPRIME_MUSL_LIB}/crtn.o")
set(CMAKE_FIND_ROOT_PATH ${POWPRIME_MUSL_LIB})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
