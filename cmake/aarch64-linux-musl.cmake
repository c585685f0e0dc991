# Build for linux-arm64 on musl (Alpine) with Debian's aarch64 cross compiler
# (g++-aarch64-linux-gnu) and Debian's arm64 musl (musl-dev:arm64, installed
# through multiarch: dpkg --add-architecture arm64); the rest is shared with
# the x64 one (cmake/musl/toolchain.cmake).
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
include(${CMAKE_CURRENT_LIST_DIR}/musl/toolchain.cmake)
