// The translation unit that builds libcommon's precompiled header (msdt_pch in
// libcommon/CMakeLists.txt), which the libraries, the tools, mkfixture and the fuzz objects
// reuse. It defines nothing.
