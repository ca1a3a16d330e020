#include "hub/http_get.hpp"

#include <algorithm>
#include <cctype>

#include "io/budgets.hpp"
#include "io/cancellation.hpp"

#ifdef MOEPLAN_HAVE_CURL
#include <curl/curl.h>

#include <memory>
#include <mutex>
#endif

namespace moeplan::hub {

#ifdef MOEPLAN_HAVE_CURL

namespace {

struct Transfer {
  HttpResponse response;
  std::size_t largest_body = 0;
  bool too_large = false;
};

std::size_t take_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto& transfer = *static_cast<Transfer*>(user);
  const std::size_t bytes = size * count;
  if (transfer.response.body.size() + bytes > transfer.largest_body) {
    transfer.too_large = true;
    return 0;  // curl stops with CURLE_WRITE_ERROR
  }
  transfer.response.body.append(data, bytes);
  return bytes;
}

// Each response's headers arrive line by line; a status line starts the next response of a redirect chain.
std::size_t take_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto& transfer = *static_cast<Transfer*>(user);
  std::string line(data, size * count);
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())) != 0) line.pop_back();
  if (line.rfind("HTTP/", 0) == 0) transfer.response.repo_commit.clear();
  std::string lowered = line;
  std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](unsigned char c) { return std::tolower(c); });
  const std::string name = "x-repo-commit:";
  if (lowered.rfind(name, 0) == 0) {
    const std::size_t start = line.find_first_not_of(' ', name.size());
    transfer.response.repo_commit = start == std::string::npos ? "" : line.substr(start);
  }
  return size * count;
}

std::string failure_text(CURLcode code, const Transfer& transfer, const HttpLimits& limits) {
  if (transfer.too_large || code == CURLE_FILESIZE_EXCEEDED) {
    return "a body larger than " + std::to_string(transfer.largest_body) + " bytes";
  }
  if (code == CURLE_PARTIAL_FILE) return "a body cut short (the connection closed before its end)";
  if (code == CURLE_OPERATION_TIMEDOUT) {
    return "no complete answer within " + std::to_string(limits.total_timeout_ms / 1000.0) + " s";
  }
  if (code == CURLE_TOO_MANY_REDIRECTS) return "more than " + std::to_string(limits.most_redirects) + " redirects";
  return curl_easy_strerror(code);
}

void set_limits(CURL* curl, const HttpLimits& limits, Transfer& transfer) {
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, limits.connect_timeout_ms);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, limits.total_timeout_ms);
  curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(transfer.largest_body));
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, limits.most_redirects);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
}

// Called by curl about once a second even while nothing arrives: a SIGINT or SIGTERM aborts the transfer.
int stop_when_cancelled(void*, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return cancellation_requested.load() ? 1 : 0;
}

void set_transfer(CURL* curl, const std::string& url, Transfer& transfer) {
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, stop_when_cancelled);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "moeplan");
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, take_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, take_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &transfer);
}

}  // namespace

bool http_available() { return true; }

HttpResponse http_get(const std::string& url, const std::string& token, const HttpLimits& limits) {
  static std::once_flag initialised;
  std::call_once(initialised, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  const std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  Transfer transfer;
  transfer.largest_body = limits.largest_body > 0 ? limits.largest_body : kLargestDownload;
  if (!curl) {
    transfer.response.failure = "an HTTP client (curl_easy_init failed)";
    return transfer.response;
  }
  set_transfer(curl.get(), url, transfer);
  set_limits(curl.get(), limits, transfer);
  const std::string authorization = "Authorization: Bearer " + token;
  const std::unique_ptr<curl_slist, void (*)(curl_slist*)> headers(
      token.empty() ? nullptr : curl_slist_append(nullptr, authorization.c_str()), curl_slist_free_all);
  if (headers) curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
  const CURLcode code = curl_easy_perform(curl.get());
  stop_if_cancelled();
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &transfer.response.status);
  if (code != CURLE_OK) transfer.response.failure = failure_text(code, transfer, limits);
  return transfer.response;
}

#else

bool http_available() { return false; }

HttpResponse http_get(const std::string&, const std::string&, const HttpLimits&) {
  HttpResponse response;
  response.failure =
      "an HTTP client: this moeplan was built without libcurl (install libcurl4-openssl-dev and "
      "rebuild, or download config.json and pass --hf-config)";
  return response;
}

#endif

}  // namespace moeplan::hub
