// libcurl for SafeFetch. curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot
// call: each option Quire sets has a typed inline wrapper here.
#include <curl/curl.h>
#include <sys/socket.h>
#include <netinet/in.h>

static inline CURLcode quire_curl_set_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode quire_curl_set_off(CURL *curl, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode quire_curl_set_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode quire_curl_set_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode quire_curl_set_slist(CURL *curl, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(curl, option, value);
}

typedef size_t (*quire_curl_data_callback)(char *data, size_t size, size_t count, void *user);
static inline CURLcode quire_curl_set_write(CURL *curl, quire_curl_data_callback callback, void *user) {
    CURLcode code = curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, callback);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(curl, CURLOPT_WRITEDATA, user);
}
static inline CURLcode quire_curl_set_header(CURL *curl, quire_curl_data_callback callback, void *user) {
    CURLcode code = curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, callback);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(curl, CURLOPT_HEADERDATA, user);
}

/// Called for every socket curl opens: answers CURL_SOCKET_BAD (refusing the connection) unless
/// the address is allowed. The Swift side decides.
typedef int (*quire_curl_address_check)(const struct sockaddr *address, socklen_t length, void *user);
struct quire_curl_guard {
    quire_curl_address_check check;
    void *user;
};
static inline curl_socket_t quire_curl_open_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *address) {
    struct quire_curl_guard *guard = (struct quire_curl_guard *)clientp;
    if (purpose != CURLSOCKTYPE_IPCXN || !guard->check(&address->addr, address->addrlen, guard->user)) return CURL_SOCKET_BAD;
    return socket(address->family, address->socktype, address->protocol);
}
static inline CURLcode quire_curl_set_guard(CURL *curl, struct quire_curl_guard *guard) {
    CURLcode code = curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, quire_curl_open_socket);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, guard);
}

static inline long quire_curl_response_code(CURL *curl) {
    long code = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
    return code;
}
static inline const char *quire_curl_redirect_url(CURL *curl) {
    char *url = NULL;
    curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &url);
    return url;
}
static inline const char *quire_curl_content_type(CURL *curl) {
    char *type = NULL;
    curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &type);
    return type;
}
