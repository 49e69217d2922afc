// Wall time of the symbolic phase's steps, summed by name and printed to stderr when the
// environment sets LOOM_ILU_PROFILE: a debug timer, off by default because it synchronizes
// the executor after every step.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "loom/base/executor.hpp"

namespace loom::sparse::detail {

class IluProfile {
public:
    explicit IluProfile(const Executor& exec, const char* what)
        : exec_(exec), what_(what), on_(std::getenv("LOOM_ILU_PROFILE") != nullptr)
    {}
    IluProfile(const IluProfile&) = delete;
    IluProfile& operator=(const IluProfile&) = delete;
    ~IluProfile()
    {
        if (!on_) return;
        std::string line = std::string("loom ilu ") + what_ + " [ms]:";
        for (const auto& [name, seconds] : steps_) {
            line += " " + name + " " + std::to_string(seconds * 1e3).substr(0, 7);
        }
        std::fprintf(stderr, "%s\n", line.c_str());
    }

    /// Books the time since the previous lap to `step`.
    void lap(const char* step)
    {
        if (!on_) return;
        exec_.synchronize();
        const auto now = std::chrono::steady_clock::now();
        const double seconds = std::chrono::duration<double>(now - last_).count();
        last_ = now;
        const auto same = std::find_if(steps_.begin(), steps_.end(),
                                       [&](const auto& booked) { return booked.first == step; });
        if (same == steps_.end()) {
            steps_.emplace_back(step, seconds);
        } else {
            same->second += seconds;
        }
    }

private:
    const Executor& exec_;
    const char* what_;
    bool on_;
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
    std::vector<std::pair<std::string, double>> steps_;
};

}  // namespace loom::sparse::detail
