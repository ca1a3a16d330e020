#pragma once
// One HTTP(S) GET over libcurl, bounded in time and size, redirects followed: the hub's files come
// through it. Built without libcurl, http_available() is false and every request fails saying so.
#include <cstddef>
#include <string>

namespace moeplan::hub {

struct HttpLimits {
  long connect_timeout_ms = 10'000;  // to open the connection
  long total_timeout_ms = 30'000;    // for the whole transfer, redirects included
  std::size_t largest_body = 0;      // bytes; a longer body is refused (0: kLargestDownload)
  long most_redirects = 5;
};

struct HttpResponse {
  long status = 0;          // the last response's HTTP status; 0 when none came back
  std::string body;         // complete only when failure is empty
  std::string repo_commit;  // the last response's X-Repo-Commit header (the hub's revision), if any
  std::string failure;      // why the transfer did not complete (timeout, cut short, too large); empty if it did
};

// Whether this build has an HTTP client (libcurl).
bool http_available();

// GETs `url` (http or https only, redirects too), with "Authorization: Bearer <token>" when `token` is
// not empty; curl drops it on a redirect to another host.
// Throws Cancelled when SIGINT or SIGTERM raises the cancellation flag while the transfer waits.
HttpResponse http_get(const std::string& url, const std::string& token, const HttpLimits& limits);

}  // namespace moeplan::hub
