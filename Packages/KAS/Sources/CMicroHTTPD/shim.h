#ifndef MEDIADRM_CMICROHTTPD_SHIM_H
#define MEDIADRM_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/* Swift cannot call C variadic functions; these shims give the calls the KAS needs fixed
   signatures. Options travel as an MHD_OptionItem array terminated by MHD_OPTION_END. */

static inline struct MHD_Daemon *
mediadrm_mhd_start_daemon(unsigned int flags, uint16_t port,
                          MHD_AccessHandlerCallback handler, void *handler_cls,
                          struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

static inline struct MHD_OptionItem
mediadrm_mhd_option_int(enum MHD_OPTION option, intptr_t value) {
    struct MHD_OptionItem item = { option, value, NULL };
    return item;
}

static inline struct MHD_OptionItem
mediadrm_mhd_option_pointer(enum MHD_OPTION option, void *pointer) {
    struct MHD_OptionItem item = { option, 0, pointer };
    return item;
}

/* Two-argument options pass the function pointer as the intptr_t member. */
static inline struct MHD_OptionItem
mediadrm_mhd_option_notify_completed(MHD_RequestCompletedCallback callback, void *cls) {
    struct MHD_OptionItem item = { MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)callback, cls };
    return item;
}

static inline struct MHD_OptionItem
mediadrm_mhd_option_end(void) {
    struct MHD_OptionItem item = { MHD_OPTION_END, 0, NULL };
    return item;
}

/* The port the daemon listens on (the kernel's choice when 0 was asked), 0 when unknown. */
static inline uint16_t
mediadrm_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    if (info != NULL && info->port != 0) return info->port;
    info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_LISTEN_FD);
    if (info == NULL || info->listen_fd < 0) return 0;
    struct sockaddr_storage addr;
    socklen_t len = sizeof(addr);
    memset(&addr, 0, sizeof(addr));
    if (getsockname(info->listen_fd, (struct sockaddr *)&addr, &len) != 0) return 0;
    if (addr.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&addr)->sin_port);
    if (addr.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&addr)->sin6_port);
    return 0;
}

/* Number of open connections of the daemon (all pool workers together). */
static inline unsigned int
mediadrm_mhd_connection_count(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

/* Writes the peer's numeric address into buffer (NUL-terminated); returns 0 on success. */
static inline int
mediadrm_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t length) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || length == 0) return -1;
    const struct sockaddr *addr = info->client_addr;
    const char *result = NULL;
    if (addr->sa_family == AF_INET) {
        result = inet_ntop(AF_INET, &((const struct sockaddr_in *)addr)->sin_addr, buffer, (socklen_t)length);
    } else if (addr->sa_family == AF_INET6) {
        result = inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)addr)->sin6_addr, buffer, (socklen_t)length);
    }
    return result == NULL ? -1 : 0;
}

#endif
