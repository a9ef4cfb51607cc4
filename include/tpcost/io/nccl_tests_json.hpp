// nccl-tests' JSON report (`all_reduce_perf ... -J FILE`, JSON_FILE_VERSION 2 of
// nccl-tests src/util.cu) read into the same `nccl_run` as the text output.
//
// The document: {"version", "args": [program, ...], "config": {"nthreads", "ngpus",
// "devices": [{"rank", "hostname", ...}, ...]}, "results": [{"size", "count", "type",
// "redop", "root", "out_of_place": {"time", "alg_bw", "bus_bw", "nwrong"} | null,
// "in_place": {...} | null}, ...], ...}. Times are in µs ("cpu_time" with -C), bandwidths
// in GB/s, "nan" is written as a string. With MPI, "devices" holds one entry per process,
// so ranks = nthreads × ngpus × len(devices).
#pragma once

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tpcost/io/json_brief.hpp"

#include "tpcost/base/error.hpp"
#include "tpcost/comm/calibration.hpp"

namespace tpcost {

namespace detail::nccl_json {

using json = nlohmann::json;

[[noreturn]] inline void fail(const std::string& source, const std::string& pointer,
                              const std::string& detail) {
  throw invalid_spec(source, pointer + ": " + detail);
}

inline double number_at(const json& object, const char* key, const std::string& source,
                        const std::string& pointer) {
  const auto it = object.find(key);
  if (it == object.end()) {
    fail(source, pointer, std::string("has no \"") + key + "\"");
  }
  if (!it->is_number() || !std::isfinite(it->get<double>())) {
    fail(source, pointer + "/" + key, "is " + json_brief(*it) + ", expected a finite number");
  }
  return it->get<double>();
}

inline void read_group(const json& result, const char* key, bytes size, placement where,
                       std::size_t index, const std::string& source, nccl_run& run) {
  const std::string pointer = "/results/" + std::to_string(index) + "/" + key;
  const auto it = result.find(key);
  if (it == result.end() || it->is_null()) {
    return;
  }
  if (!it->is_object()) {
    fail(source, pointer, "is " + json_brief(*it) + ", expected an object");
  }
  const char* time_key = it->contains("time") ? "time" : "cpu_time";
  const double time_us = number_at(*it, time_key, source, pointer);
  if (!(time_us > 0.0)) {
    fail(source, pointer + "/" + time_key, "is not a positive number of microseconds");
  }
  if (!detail::nccl::plausible_time_us(time_us)) {
    fail(source, pointer + "/" + time_key, "is outside 0.001 us .. 1e12 us");
  }
  const double algbw = number_at(*it, "alg_bw", source, pointer);
  const double busbw = number_at(*it, "bus_bw", source, pointer);
  if (algbw < 0.0 || busbw < 0.0) {
    fail(source, pointer, "has a negative bandwidth");
  }
  if (const auto wrong = it->find("nwrong"); wrong != it->end() && !wrong->is_null()) {
    if (!wrong->is_number()) {
      fail(source, pointer + "/nwrong", "is " + json_brief(*wrong) + ", expected a count or null");
    }
    if (wrong->get<double>() > 0.0) {
      fail(source, pointer + "/nwrong",
           "nccl-tests found " + json_brief(*wrong) +
               " wrong elements: the run failed its check, calibrating from it is refused");
    }
  }
  if (run.samples.size() >= detail::nccl::max_samples) {
    fail(source, pointer, "is beyond 20000 timings; calibrate takes one nccl-tests sweep per file");
  }
  run.samples.push_back(nccl_sample{
      .size = size,
      .time = time_us * units::us,
      .where = where,
      .line = index,
      .printed_algbw = algbw,
      .printed_busbw = busbw,
      .printed_half_unit = 5e-7,  // "%lf": 6 decimals
  });
}

}  // namespace detail::nccl_json

/// Reads nccl-tests' JSON report. Throws invalid_spec(source, "/pointer: detail") for text
/// that is not JSON, a missing or mistyped member, a failed check or no results.
inline nccl_run parse_nccl_tests_json(std::string_view text, const std::string& source) {
  using namespace detail::nccl_json;
  const json doc = parse_untrusted_json(text, source);
  if (!doc.is_object()) {
    fail(source, "/", "the document is not an object");
  }
  nccl_run run;
  run.source = source;
  run.from_json = true;
  if (const auto args = doc.find("args");
      args != doc.end() && args->is_array() && !args->empty() && args->front().is_string()) {
    const auto program = args->front().get<std::string>();
    const auto slash = program.find_last_of('/');
    if (const auto kind = collective_from_name(
            slash == std::string::npos ? program : program.substr(slash + 1))) {
      run.collective = kind;
      run.collective_from = "/args/0";
    }
  }
  if (const auto config = doc.find("config"); config != doc.end() && config->is_object()) {
    const auto threads = config->find("nthreads");
    const auto gpus = config->find("ngpus");
    if (threads != config->end() && gpus != config->end() && threads->is_number_integer() &&
        gpus->is_number_integer()) {
      run.ranks_per_process = detail::nccl::rank_count(
          source, "/config: ", {threads->get<std::int64_t>(), gpus->get<std::int64_t>()},
          "nthreads x ngpus");
      const auto devices = config->find("devices");
      if (devices != config->end() && devices->is_array() && !devices->empty()) {
        run.ranks = detail::nccl::rank_count(
            source,
            "/config: ", {*run.ranks_per_process, static_cast<std::int64_t>(devices->size())},
            "nthreads x ngpus x devices");
        run.ranks_from = "/config: nthreads x ngpus x devices";
        std::set<std::string> hosts;
        for (const auto& d : *devices) {
          if (d.is_object() && d.contains("hostname") && d["hostname"].is_string()) {
            hosts.insert(d["hostname"].get<std::string>());
          }
        }
        if (!hosts.empty()) {
          run.nodes = static_cast<std::int64_t>(hosts.size());
          run.nodes_from = "/config/devices hostnames";
        }
      }
    }
  }
  const auto results = doc.find("results");
  if (results == doc.end() || !results->is_array()) {
    fail(source, "/results", "is missing or not an array; is this an nccl-tests -J report?");
  }
  for (std::size_t i = 0; i < results->size(); ++i) {
    const auto& r = (*results)[i];
    const std::string pointer = "/results/" + std::to_string(i);
    if (!r.is_object()) {
      fail(source, pointer, "is not an object");
    }
    const auto size = r.find("size");
    if (size == r.end() || !size->is_number_unsigned() ||
        size->get<std::uint64_t>() > detail::nccl::max_size_bytes) {
      fail(source, pointer + "/size", "is missing or not a whole number of bytes up to 2^60");
    }
    const bytes m{static_cast<double>(size->get<std::uint64_t>())};
    read_group(r, "out_of_place", m, placement::out_of_place, i, source, run);
    read_group(r, "in_place", m, placement::in_place, i, source, run);
  }
  if (run.samples.empty()) {
    fail(source, "/results", "holds no timing");
  }
  return run;
}

}  // namespace tpcost
