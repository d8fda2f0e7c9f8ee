# The Debian package (`make package`, scripts/package; issue 37): CPack's DEB
# generator over this tree's install rules, laid out as a Debian developer
# would for bookworm. The version is the project's (what `abcictl version`
# prints) plus a Debian revision. docs/decisions.md "The Debian package".

set(ABCI_DEB_REVISION 1 CACHE STRING "The Debian revision of the package (abcictl_<version>-<revision>_amd64.deb)")
set(ABCI_DEB_MAINTAINER "abcictl maintainers <maintainers@users.noreply.a-seed-375d2452.example>")
set(ABCI_PACKAGE_FILES ${CMAKE_BINARY_DIR}/packaging)

# What is compressed or written for the package, from the commit at each
# build (not at configure time, which would name a stale one): the
# changelog, the man page and the README, gzip -9n as dh_compress makes them
# (no name, no time: the same bytes every time), and the template unit.
add_custom_target(abci_package_files ALL
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DOUTPUT_DIR=${ABCI_PACKAGE_FILES}
          "-DVERSION=${PROJECT_VERSION}-${ABCI_DEB_REVISION}" "-DMAINTAINER=${ABCI_DEB_MAINTAINER}"
          -P ${PROJECT_SOURCE_DIR}/cmake/package_files.cmake
  BYPRODUCTS ${ABCI_PACKAGE_FILES}/changelog.Debian.gz ${ABCI_PACKAGE_FILES}/abcictl.1.gz
             ${ABCI_PACKAGE_FILES}/README.md.gz ${ABCI_PACKAGE_FILES}/abcictl@.service
  COMMENT "Package files (changelog, man page, README, abcictl@.service)" VERBATIM)

# Only the package's: a `cmake --install` to /usr/local puts nothing in /etc
# or in systemd's directory (component system, left out of a default install).
set(ABCI_DOC_DIR ${CMAKE_INSTALL_DATADIR}/doc/abcictl)
install(FILES ${ABCI_PACKAGE_FILES}/abcictl.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES packaging/copyright ${ABCI_PACKAGE_FILES}/changelog.Debian.gz ${ABCI_PACKAGE_FILES}/README.md.gz
        DESTINATION ${ABCI_DOC_DIR})
install(FILES examples/serve-two-chains.toml examples/haproxy-replicas.cfg examples/cron-health.sh
              examples/approve-pending.sh
        DESTINATION ${ABCI_DOC_DIR}/examples)
install(FILES packaging/lintian-overrides DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME abcictl)
# Where bookworm's debhelper puts units (trixie's in /usr/lib); systemd reads both.
install(FILES packaging/abcictl.service ${ABCI_PACKAGE_FILES}/abcictl@.service
        DESTINATION /lib/systemd/system COMPONENT system EXCLUDE_FROM_ALL)
install(FILES packaging/abcictl.toml DESTINATION /etc/abcictl
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ COMPONENT system EXCLUDE_FROM_ALL)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME abcictl)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${ABCI_DEB_MAINTAINER})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_CMAKE_PROJECTS "${CMAKE_BINARY_DIR};abcictl;Unspecified;/;${CMAKE_BINARY_DIR};abcictl;system;/")
set(CPACK_STRIP_FILES ON)
# Directories and files as dh_fixperms leaves them, whatever the builder's umask.
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
    WORLD_READ WORLD_EXECUTE)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${ABCI_DEB_REVISION})
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# postinst makes the system user with adduser; HTTPS RPC nodes and identity
# providers are verified against the system's certificate authorities.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ca-certificates")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "postgresql (>= 15)")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "ABCI token layer: command-line client and API server")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "abcictl mints and reads the ABCI role and entity tokens on EVM chains. It is
both the operator's command-line client and the HTTP API server (abcictl
serve), which runs as the abcictl service under systemd, configured in
/etc/abcictl/abcictl.toml, with its state (SQLite or PostgreSQL 15) in
/var/lib/abcictl.
.
serve --devnet, a local chain for trying it out, needs Foundry's anvil,
which Debian does not package: it is for development machines, not for the
service.")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/packaging/conffiles ${PROJECT_SOURCE_DIR}/packaging/postinst
    ${PROJECT_SOURCE_DIR}/packaging/prerm ${PROJECT_SOURCE_DIR}/packaging/postrm)
# Maintainer scripts 0755 and conffiles 0644 whatever the checkout's modes.
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
