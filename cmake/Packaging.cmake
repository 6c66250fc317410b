# What `cmake --install` and `cpack -G DEB` install: the CLI, the shared library (SONAME = the ABI
# version) and the static one, the public headers, a CMake package (find_package(onnx_placer CONFIG)
# with a version file) and a pkg-config file, both relocatable, and the Python module when it is built.
include(CMakePackageConfigHelpers)

set(PLACER_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/onnx_placer)
install(TARGETS onnx_placer EXPORT onnx_placerTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PLACER_STATIC_ARCHIVE} DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/onnx_placer DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/onnx_placer/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/onnx_placer)
install(EXPORT onnx_placerTargets NAMESPACE onnx_placer:: DESTINATION ${PLACER_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/onnx_placerConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/onnx_placerConfig.cmake INSTALL_DESTINATION ${PLACER_CMAKE_DIR})
# 0.x releases promise nothing across minor versions; the ABI version is what plugins check.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/onnx_placerConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/onnx_placerConfig.cmake ${PROJECT_BINARY_DIR}/onnx_placerConfigVersion.cmake
        DESTINATION ${PLACER_CMAKE_DIR})

# pkg-config: the prefix found from the .pc file's own place, so that the package can be installed
# anywhere (a temporary prefix in the tests, /usr from the .deb).
set(PLACER_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH PLACER_PC_TO_PREFIX /prefix/${PLACER_PC_DIR} /prefix)
string(REGEX REPLACE "/$" "" PLACER_PC_TO_PREFIX "${PLACER_PC_TO_PREFIX}")
set(PLACER_PC_REQUIRES_PRIVATE "protobuf")
set(PLACER_PC_PRIVATE_LIBS "-lonnx -lonnx_proto -lglpk -lscotch -lscotcherr ${CMAKE_DL_LIBS} -lpthread")
if(PLACER_HAVE_CBC)
  string(APPEND PLACER_PC_REQUIRES_PRIVATE " cbc")
endif()
string(REPLACE "${CMAKE_DL_LIBS}" "-l${CMAKE_DL_LIBS}" PLACER_PC_PRIVATE_LIBS "${PLACER_PC_PRIVATE_LIBS}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/onnx_placer.pc.in ${PROJECT_BINARY_DIR}/onnx_placer.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/onnx_placer.pc DESTINATION ${PLACER_PC_DIR})

# cpack -G DEB (from the build directory): onnx-placer_<version>_<arch>.deb, installing under /usr,
# its library dependencies found by dpkg-shlibdeps.
set(CPACK_PACKAGE_NAME onnx-placer)
set(CPACK_PACKAGE_VENDOR "onnx-placer")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Optimal placement of ONNX model operators on accelerators and CPUs: CLI, C/C++ library, Python module")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "onnx-placer developers <onnx-placer@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, python3-onnx")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libonnx-dev, libprotobuf-dev, libglpk-dev, libscotch-dev, coinor-libcbc-dev")
set(CPACK_STRIP_FILES ON)
include(CPack)
