# Build for linux-x64 on musl (Alpine) with the host's GCC, Debian's musl
# (musl-dev) for the C library, and the host's libstdc++ and libgcc linked in
# statically: the result needs nothing but musl's libc and Node-API, which is
# what an Alpine Node provides. The libstdc++ headers were configured for
# glibc; cmake/musl/libstdcxx-compat.h bridges the two spellings they use, and
# cmake/musl/glibc_shims.cc (added by CMakeLists.txt when POWPRIME_MUSL is set)
# the glibc symbols the static archives and headers call.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER gcc)
set(CMAKE_CXX_COMPILER g++)
set(POWPRIME_MUSL ON)
set(POWPRIME_MUSL_LIB /usr/lib/x86_64-linux-musl)

set(MUSL_INCLUDE /usr/include/x86_64-linux-musl)

execute_process(COMMAND g++ -dumpversion OUTPUT_VARIABLE GCC_MAJOR OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND g++ -print-file-name=include OUTPUT_VARIABLE GCC_INCLUDE OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND g++ -print-libgcc-file-name OUTPUT_VARIABLE LIBGCC OUTPUT_STRIP_TRAILING_WHITESPACE)
get_filename_component(POWPRIME_GCC_LIBDIR ${LIBGCC} DIRECTORY)

# The C++ headers first (they #include_next the C ones), then GCC's own
# (stddef.h, intrinsics), then musl's instead of glibc's.
# (CMakeLists.txt applies them to its targets: cmake-js sets CMAKE_CXX_FLAGS itself.)
# ("SHELL:" keeps CMake from merging the repeated -isystem words.)
set(POWPRIME_MUSL_CXX_FLAGS -nostdinc
  "SHELL:-isystem /usr/include/c++/${GCC_MAJOR}"
  "SHELL:-isystem /usr/include/x86_64-linux-gnu/c++/${GCC_MAJOR}"
  "SHELL:-isystem /usr/include/c++/${GCC_MAJOR}/backward"
  "SHELL:-isystem ${GCC_INCLUDE}"
  "SHELL:-isystem ${MUSL_INCLUDE}"
  "SHELL:-include ${CMAKE_CURRENT_LIST_DIR}/musl/libstdcxx-compat.h")
# musl's start files and libc, GCC's own around them; libstdc++, libgcc_eh and
# libgcc from archives (their debug sections left out). Node-API symbols stay
# undefined for Node to provide.
set(POWPRIME_MUSL_LINK_PREFIX "-Wl,--strip-debug ${POWPRIME_MUSL_LIB}/crti.o ${POWPRIME_GCC_LIBDIR}/crtbeginS.o")
set(POWPRIME_MUSL_LINK_SUFFIX "${POWPRIME_GCC_LIBDIR}/libstdc++.a ${POWPRIME_GCC_LIBDIR}/libgcc_eh.a ${POWPRIME_GCC_LIBDIR}/libgcc.a -L${POWPRIME_MUSL_LIB} -lc ${POWPRIME_GCC_LIBDIR}/crtendS.o ${POWPRIME_MUSL_LIB}/crtn.o")
set(CMAKE_FIND_ROOT_PATH ${POWPRIME_MUSL_LIB})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
