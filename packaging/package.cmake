# install() rules and the Debian package (CPack DEB), included by the top-level CMakeLists.txt
# after the targets exist. `cmake --install BUILD` installs under CMAKE_INSTALL_PREFIX (default
# /usr, so that the unit's ExecStart and the package agree); `cpack -G DEB` in the build dir
# (scripts/package) makes outboxd_<version>-1_<arch>.deb.
#
# Installed files:
#   <prefix>/bin/outboxd
#   /etc/outboxd/outboxd.toml            (conffile, 0640 root:outboxd via postinst)
#   /lib/systemd/system/outboxd.service  (hardened; not enabled on install)
#   <prefix>/share/doc/outboxd/README.md, LICENSE, CHANGELOG.md
#   <prefix>/share/doc/outboxd/docs/      (the docs/ pages, alert rules and dashboard, so the
#                                          README's relative links resolve)

include(GNUInstallDirs)  # With prefix /usr, CMAKE_INSTALL_FULL_SYSCONFDIR is /etc.

set(OUTBOXD_SYSTEMD_UNIT_DIR "" CACHE PATH
  "Where the systemd unit goes (empty: /lib/systemd/system for prefix /usr, else <prefix>/lib/...)")
if(OUTBOXD_SYSTEMD_UNIT_DIR)
  set(unit_dir "${OUTBOXD_SYSTEMD_UNIT_DIR}")
elseif(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(unit_dir "/lib/systemd/system")  # Debian bookworm's systemdsystemunitdir.
else()
  set(unit_dir "${CMAKE_INSTALL_PREFIX}/lib/systemd/system")
endif()

set(OUTBOXD_CONFIG_DIR "${CMAKE_INSTALL_FULL_SYSCONFDIR}/outboxd")
set(OUTBOXD_CONFIG_FILE "${OUTBOXD_CONFIG_DIR}/outboxd.toml")
set(OUTBOXD_INSTALL_BINARY "${CMAKE_INSTALL_FULL_BINDIR}/outboxd")
set(OUTBOXD_DOC_DIR "${CMAKE_INSTALL_FULL_DOCDIR}")

set(pkg_src "${PROJECT_SOURCE_DIR}/packaging")
set(pkg_gen "${PROJECT_BINARY_DIR}/packaging")
configure_file("${pkg_src}/outboxd.service.in" "${pkg_gen}/outboxd.service" @ONLY)
foreach(script postinst prerm postrm)
  configure_file("${pkg_src}/${script}.in" "${pkg_gen}/debian/${script}" @ONLY
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ
    WORLD_EXECUTE)
endforeach()
configure_file("${pkg_src}/conffiles.in" "${pkg_gen}/debian/conffiles" @ONLY)

install(TARGETS outboxd RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(FILES "${pkg_src}/outboxd.toml" DESTINATION "${OUTBOXD_CONFIG_DIR}")
install(FILES "${pkg_gen}/outboxd.service" DESTINATION "${unit_dir}")
install(FILES "${PROJECT_SOURCE_DIR}/README.md" "${PROJECT_SOURCE_DIR}/LICENSE"
  "${PROJECT_SOURCE_DIR}/CHANGELOG.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/" DESTINATION "${CMAKE_INSTALL_DOCDIR}/docs")

set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "outboxd")
set(CPACK_PACKAGE_VERSION "${OUTBOXD_DEB_VERSION}")
set(CPACK_PACKAGE_VENDOR "outboxd")
set(CPACK_PACKAGE_CONTACT "outboxd maintainers <maintainers@users.noreply.a-seed-67de9d91.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "PostgreSQL transactional outbox to Kafka relay")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
  "outboxd tails a logical replication slot (pgoutput), publishes each row inserted\n"
  "into the configured outbox tables as a Kafka record keyed by its aggregate id, and\n"
  "confirms the slot position only after Kafka acknowledged it: at-least-once, in\n"
  "commit order per aggregate, records compatible with Debezium's Outbox Event Router.")
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME "DEB-DEFAULT")
# "1+deb12", "1+deb13": one package per Debian release, the later release's sorting higher.
set(OUTBOXD_DEB_RELEASE "1" CACHE STRING "The .deb's Debian revision (scripts/package sets 1+debN)")
set(CPACK_DEBIAN_PACKAGE_RELEASE "${OUTBOXD_DEB_RELEASE}")
set(CPACK_DEBIAN_PACKAGE_SECTION "net")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
# Library dependencies (libpq5, librdkafka1, libfmt, ...) come from dpkg-shlibdeps on
# the binary, with the minimum versions it was linked against; passwd provides useradd;
# libsystemd0 (sd_notify, for the Type=notify unit) is named too, though shlibdeps finds it.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "passwd, libsystemd0")
if(NOT OUTBOXD_STATIC_RDKAFKA)
  # The symbols file asks for librdkafka1 >= 1.4.2; SCRAM against Kafka 4 needs what it was
  # built with (README, "Which librdkafka").
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", librdkafka1 (>= ${RDKAFKA_VERSION})")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ca-certificates")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  "${pkg_gen}/debian/postinst;${pkg_gen}/debian/prerm;${pkg_gen}/debian/postrm;${pkg_gen}/debian/conffiles")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
