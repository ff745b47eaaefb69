#ifndef MEDIADRM_CMICROHTTPD_SHIM_H
#define MEDIADRM_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/* Swift cannot call C variadic functions; these shims give the calls the KAS needs fixed
   signatures. Options travel as an MHD_OptionItem array terminated by MHD_OPTION_END. */

static inline struct MHD_Daemon *
mediadrm_mhd_start_daemon(unsigned int flags, uint16_t port,
                          MHD_AcceptPolicyCallback accept_policy, void *accept_policy_cls,
                          MHD_AccessHandlerCallback handler, void *handler_cls,
                          struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, accept_policy, accept_policy_cls, handler, handler_cls,
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
mediadrm_mhd_option_notify_connection(MHD_NotifyConnectionCallback callback, void *cls) {
    struct MHD_OptionItem item = { MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)callback, cls };
    return item;
}

/* The request-target logger: called with the raw target (before unescaping) once the request
   line is read; what it returns becomes the request's per-request pointer. */
typedef void *(*mediadrm_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

static inline struct MHD_OptionItem
mediadrm_mhd_option_uri_log(mediadrm_uri_log_callback callback, void *cls) {
    struct MHD_OptionItem item = { MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)callback, cls };
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

/* Writes a numeric IPv4 or IPv6 address into buffer (NUL-terminated); an IPv4-mapped IPv6
   address is written as IPv4. Returns 0 on success. */
static inline int
mediadrm_format_address(const struct sockaddr *addr, char *buffer, size_t length) {
    if (addr == NULL || length == 0) return -1;
    const char *result = NULL;
    if (addr->sa_family == AF_INET) {
        result = inet_ntop(AF_INET, &((const struct sockaddr_in *)addr)->sin_addr, buffer, (socklen_t)length);
    } else if (addr->sa_family == AF_INET6) {
        const struct in6_addr *v6 = &((const struct sockaddr_in6 *)addr)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(v6)) {
            result = inet_ntop(AF_INET, &v6->s6_addr[12], buffer, (socklen_t)length);
        } else {
            result = inet_ntop(AF_INET6, v6, buffer, (socklen_t)length);
        }
    }
    return result == NULL ? -1 : 0;
}

/* Writes the peer's numeric address into buffer (NUL-terminated); returns 0 on success. */
static inline int
mediadrm_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t length) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL) return -1;
    return mediadrm_format_address(info->client_addr, buffer, length);
}

/* The connection's socket, -1 when unknown. */
static inline int
mediadrm_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/* Whether the peer has closed its side of a TCP connection (CLOSE-WAIT, or already gone):
   1 closed, 0 open, -1 unknown (not TCP). */
static inline int
mediadrm_tcp_peer_closed(int fd) {
    struct tcp_info info;
    socklen_t length = sizeof(info);
    memset(&info, 0, sizeof(info));
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return -1;
    return info.tcpi_state == TCP_ESTABLISHED ? 0 : 1;
}

#endif
