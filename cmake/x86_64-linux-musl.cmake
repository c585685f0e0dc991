# Build for linux-x64 on musl (Alpine) with the host's GCC and Debian's musl
# (musl-dev); the rest is shared with the arm64 one (cmake/musl/toolchain.cmake).
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER gcc)
set(CMAKE_CXX_COMPILER g++)
include(${CMAKE_CURRENT_LIST_DIR}/musl/toolchain.cmake)
