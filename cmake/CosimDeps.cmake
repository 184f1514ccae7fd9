# Third-party packages, all from Debian (scripts/deps.sh installs them).
find_package(fmt REQUIRED)
find_package(GTest REQUIRED)
find_package(Boost 1.74 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Threads REQUIRED)

if(COSIM_WITH_RTL)
  find_package(verilator 5.0 REQUIRED HINTS $ENV{VERILATOR_ROOT} /usr/share/verilator)
  # There is no SystemC CMake package on Debian: import the system library.
  find_path(SYSTEMC_INCLUDE_DIR systemc.h REQUIRED)
  find_library(SYSTEMC_LIBRARY systemc REQUIRED)
  add_library(SystemC::systemc UNKNOWN IMPORTED)
  set_target_properties(SystemC::systemc PROPERTIES
    IMPORTED_LOCATION "${SYSTEMC_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${SYSTEMC_INCLUDE_DIR}"
    INTERFACE_COMPILE_DEFINITIONS "SC_CPLUSPLUS=201703L")
endif()
