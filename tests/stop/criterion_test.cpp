#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/log/loggers.hpp"
#include "loom/stop/criterion.hpp"

namespace {

using namespace loom;
using stop::ColumnStatus;
using stop::Reason;

struct Fixture {
    std::vector<double> rhs{10, 10, 0};
    std::vector<double> initial{4, 8, 1};
    std::vector<ColumnStatus> status = std::vector<ColumnStatus>(3);
    stop::Context context{std::chrono::steady_clock::now(), rhs, initial};
};

TEST(Criteria, MaxIterationsStopsEveryColumnAtTheLimit)
{
    Fixture f;
    const auto c = stop::max_iterations(5);
    const std::vector<double> norms{1, 1, 1};
    EXPECT_FALSE(c->check(f.context, {4, norms}, f.status));
    for (const auto& s : f.status) EXPECT_FALSE(s.stopped());
    EXPECT_TRUE(c->check(f.context, {5, norms}, f.status));
    for (const auto& s : f.status) {
        EXPECT_EQ(s.reason, Reason::iteration_limit);
        EXPECT_EQ(s.iteration, 5);
    }
    EXPECT_EQ(c->description(), "iterations >= 5");
}

TEST(Criteria, ResidualNormBaselines)
{
    const std::vector<double> norms{0.5, 0.5, 0.5};
    {
        Fixture f;  // ||r|| <= 0.1 ||b||: 0.5 <= 1 twice; b = 0 gives threshold 0
        EXPECT_TRUE(stop::relative_residual(0.1)->check(f.context, {3, norms}, f.status));
        EXPECT_EQ(f.status[0].reason, Reason::converged);
        EXPECT_EQ(f.status[1].reason, Reason::converged);
        EXPECT_FALSE(f.status[2].stopped());
        EXPECT_EQ(f.status[0].iteration, 3);
    }
    {
        Fixture f;  // ||r|| <= 0.1 ||r0||: thresholds 0.4, 0.8, 0.1
        EXPECT_TRUE(stop::residual_reduction(0.1)->check(f.context, {1, norms}, f.status));
        EXPECT_FALSE(f.status[0].stopped());
        EXPECT_TRUE(f.status[1].converged());
        EXPECT_FALSE(f.status[2].stopped());
    }
    {
        Fixture f;
        EXPECT_FALSE(stop::absolute_residual(0.4)->check(f.context, {1, norms}, f.status));
        EXPECT_TRUE(stop::absolute_residual(0.5)->check(f.context, {1, norms}, f.status));
        for (const auto& s : f.status) EXPECT_TRUE(s.converged());
    }
}

TEST(Criteria, ColumnsAlreadyStoppedAreLeftAlone)
{
    Fixture f;
    f.status[1] = {Reason::breakdown, 2, "rho"};
    const std::vector<double> norms{0, 0, 0};
    stop::absolute_residual(1)->check(f.context, {7, norms}, f.status);
    EXPECT_EQ(f.status[1].reason, Reason::breakdown);
    EXPECT_EQ(f.status[1].iteration, 2);
    EXPECT_EQ(f.status[0].iteration, 7);
}

TEST(Criteria, NanResidualIsNotConvergence)
{
    Fixture f;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> norms{nan, nan, nan};
    EXPECT_FALSE(stop::absolute_residual(1e300)->check(f.context, {1, norms}, f.status));
}

TEST(Criteria, TimeLimit)
{
    Fixture f;
    const std::vector<double> norms{1, 1, 1};
    EXPECT_FALSE(stop::time_limit(std::chrono::hours(1))->check(f.context, {1, norms}, f.status));
    EXPECT_TRUE(stop::time_limit(std::chrono::nanoseconds(0))->check(f.context, {1, norms}, f.status));
    EXPECT_EQ(f.status[0].reason, Reason::time_limit);
}

TEST(Criteria, CombinationStopsAtTheFirstThatHoldsAndPrefersConvergence)
{
    Fixture f;
    auto both = stop::max_iterations(3) | stop::absolute_residual(0.1);
    const std::vector<double> norms{0.05, 1, 1};
    EXPECT_FALSE(both->check(f.context, {2, std::vector<double>{1, 1, 1}}, f.status));
    EXPECT_TRUE(both->check(f.context, {3, norms}, f.status));
    EXPECT_EQ(f.status[0].reason, Reason::converged);  // tie at iteration 3: convergence wins
    EXPECT_EQ(f.status[1].reason, Reason::iteration_limit);
    EXPECT_EQ(f.status[2].reason, Reason::iteration_limit);
    // (a | b) | c flattens into one list
    auto three = both | stop::time_limit(std::chrono::seconds(1));
    EXPECT_EQ(three->criteria().size(), 3u);
    EXPECT_NE(three->description().find(" or "), std::string::npos);
}

TEST(Criteria, RejectBadParameters)
{
    EXPECT_THROW(stop::max_iterations(-1), BadInput);
    EXPECT_THROW(stop::relative_residual(-1e-8), BadInput);
    EXPECT_THROW(stop::relative_residual(std::numeric_limits<double>::quiet_NaN()), BadInput);
    EXPECT_THROW(stop::absolute_residual(std::numeric_limits<double>::infinity()), BadInput);
    EXPECT_THROW(stop::time_limit(std::chrono::seconds(-1)), BadInput);
    EXPECT_THROW(stop::any_of({}), BadInput);
    EXPECT_THROW(stop::any_of({stop::max_iterations(1), nullptr}), BadInput);
}

TEST(Criteria, LoggersSeeEveryCheck)
{
    Fixture f;
    auto c = stop::max_iterations(2);
    auto record = std::make_shared<log::RecordLogger>();
    c->add_logger(record);
    const std::vector<double> norms{1, 1, 1};
    c->check(f.context, {1, norms}, f.status);
    c->check(f.context, {2, norms}, f.status);
    ASSERT_EQ(record->count(log::EventKind::criterion_checked), 2u);
    EXPECT_FALSE(record->records()[0].stopped_any);
    EXPECT_TRUE(record->records()[1].stopped_any);
    EXPECT_EQ(record->records()[1].source, c.get());
    c->remove_logger(record.get());
    c->check(f.context, {3, norms}, f.status);
    EXPECT_EQ(record->records().size(), 2u);
}

}  // namespace
