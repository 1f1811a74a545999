// The benchmark CSV reader and writer: exact big-integer rationals, rounding, headers, every
// malformed case with its message, and the writer -> reader round trip.
#include <gmpxx.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "concord/collision/ccd/ccd_query_io.hpp"
#include "concord/math/error.hpp"

namespace concord {
namespace {

// Eight rows with the same ground truth, one vertex per row from `rows`.
std::string query_rows(const std::vector<std::string>& rows, int truth) {
    std::string s;
    for (int k = 0; k < 8; ++k) s += rows[k % rows.size()] + "," + std::to_string(truth) + "\n";
    return s;
}

std::vector<CCDQuery> read_text(const std::string& text,
                                CCDQueryType type = CCDQueryType::VertexFace) {
    std::istringstream in(text);
    return read_ccd_queries(in, "q.csv", type);
}

// The message of the InputError that reading `text` raises ("" if none).
std::string error_of(const std::string& text) {
    try {
        read_text(text);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

TEST(CCDQueryIO, ReadsBigIntegersExactly) {
    // 3 * 2^100 / 2^99 = 6; a 120-digit numerator over itself times 4 = 0.25; 2^-60 exactly.
    const std::string big(120, '7');
    const std::string row = "3802951800684688204490109616128,633825300114114700748351602688," +
                            big + "," + big + "0000" /* not 4 * big: checked below */ +
                            ",1,1152921504606846976";
    const auto q = read_text(query_rows({row}, 1));
    ASSERT_EQ(q.size(), 1u);
    EXPECT_EQ(q[0].vertices[0].x(), 6.0);
    EXPECT_EQ(q[0].vertices[0].y(), 1e-4);  // big / (big * 10^4), rounded to nearest
    EXPECT_FALSE(q[0].exact);               // 10^-4 is not a double
    EXPECT_EQ(q[0].vertices[0].z(), std::ldexp(1.0, -60));
    EXPECT_TRUE(q[0].ground_truth);
    EXPECT_EQ(q[0].line, 1);
    EXPECT_EQ(q[0].type, CCDQueryType::VertexFace);
}

TEST(CCDQueryIO, SignsOfNumeratorAndDenominator) {
    const auto q = read_text(query_rows({"-3,4,3,-4,-3,-4"}, 0));
    ASSERT_EQ(q.size(), 1u);
    EXPECT_EQ(q[0].vertices[5], Vec3(-0.75, -0.75, 0.75));
    EXPECT_TRUE(q[0].exact);
    EXPECT_FALSE(q[0].ground_truth);
    const auto plus = read_text(query_rows({"+1,+2,0,5,-0,1"}, 0));
    EXPECT_EQ(plus[0].vertices[0], Vec3(0.5, 0, 0));
}

TEST(CCDQueryIO, InexactValuesRoundToNearest) {
    // GMP's own conversion truncates; IEEE division rounds to nearest, as the reader must.
    const std::vector<std::pair<int, int>> fractions = {{1, 3},  {2, 3}, {1, 10}, {7, 10},
                                                        {-2, 3}, {5, 7}, {-1, 10}};
    for (auto [num, den] : fractions) {
        const std::string row = std::to_string(num) + "," + std::to_string(den) + ",0,1,0,1";
        const auto q = read_text(query_rows({row}, 0));
        EXPECT_EQ(q[0].vertices[0].x(), static_cast<double>(num) / den) << num << "/" << den;
        EXPECT_FALSE(q[0].exact);
    }
}

TEST(CCDQueryIO, HeaderBlankLinesAndCarriageReturns) {
    const std::string text = "x_num,x_den,y_num,y_den,z_num,z_den,ground_truth\n\n" +
                             query_rows({"1,2,3,4,5,8"}, 1) + "\n" + query_rows({"0,1,0,1,0,1"}, 0);
    std::string crlf;
    for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    const auto q = read_text(crlf);
    ASSERT_EQ(q.size(), 2u);
    EXPECT_EQ(q[0].vertices[3], Vec3(0.5, 0.75, 0.625));
    EXPECT_EQ(q[0].line, 3);
    EXPECT_EQ(q[1].line, 12);
    EXPECT_EQ(read_text("").size(), 0u);
}

TEST(CCDQueryIO, OnlyAClearHeaderIsSkipped) {
    // A first line with a numeric field is data and must parse as data.
    const std::string msg = error_of("x_num,1,y,y,z,z,g\n" + query_rows({"0,1,0,1,0,1"}, 0));
    EXPECT_NE(msg.find("q.csv:1:"), std::string::npos) << msg;
    // A header anywhere but the first line is malformed.
    const std::string late = error_of(query_rows({"0,1,0,1,0,1"}, 0) + "a,b,c,d,e,f,g\n");
    EXPECT_NE(late.find("q.csv:9:"), std::string::npos) << late;
}

struct Malformed {
    std::string name, text, expected_location, expected_phrase;
};

TEST(CCDQueryIO, MalformedInputNamesFileAndLine) {
    const std::string ok = "1,2,3,4,5,8,0\n";
    auto with_row = [&](int line, const std::string& row) {  // 8 rows, `line` replaced
        std::string s;
        for (int k = 1; k <= 8; ++k) s += k == line ? row + "\n" : ok;
        return s;
    };
    const std::vector<Malformed> cases = {
        {"six fields", with_row(3, "1,2,3,4,5,0"), "q.csv:3:", "found 6"},
        {"eight fields", with_row(2, "1,2,3,4,5,8,0,0"), "q.csv:2:", "found 8"},
        {"decimal point", with_row(4, "1.5,2,3,4,5,8,0"), "q.csv:4:", "x_num is not an integer"},
        {"letters", with_row(5, "1,2,abc,4,5,8,0"), "q.csv:5:", "y_num is not an integer"},
        {"empty field", with_row(6, "1,2,3,,5,8,0"), "q.csv:6:", "y_den is not an integer"},
        {"hex", with_row(7, "1,2,3,4,0x10,8,0"), "q.csv:7:", "z_num is not an integer"},
        {"sign only", with_row(8, "1,2,3,4,5,-,0"), "q.csv:8:", "z_den is not an integer"},
        {"zero denominator", with_row(2, "1,0,3,4,5,8,0"), "q.csv:2:", "x_den is zero"},
        {"truth 2", with_row(3, "1,2,3,4,5,8,2"), "q.csv:3:", "ground_truth must be 0 or 1"},
        {"truth word", with_row(3, "1,2,3,4,5,8,yes"), "q.csv:3:", "ground_truth must be 0 or 1"},
        {"inconsistent truth", with_row(5, "1,2,3,4,5,8,1"),
         "q.csv:5:", "differs from 0 on line 1"},
        {"incomplete query", with_row(0, "") + ok + ok, "q.csv:9:", "incomplete query: 2 rows"},
        {"too large", with_row(4, "1" + std::string(400, '0') + ",1,0,1,0,1,0"),
         "q.csv:4:", "outside the range of double"},
    };
    for (const Malformed& c : cases) {
        const std::string msg = error_of(c.text);
        EXPECT_NE(msg.find(c.expected_location), std::string::npos) << c.name << ": " << msg;
        EXPECT_NE(msg.find(c.expected_phrase), std::string::npos) << c.name << ": " << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << c.name << ": one line";
    }
}

TEST(CCDQueryIO, MissingFileIsAnInputError) {
    try {
        read_ccd_queries("/nonexistent/dir/queries.csv", CCDQueryType::EdgeEdge);
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/queries.csv"), std::string::npos);
    }
}

TEST(CCDQueryIO, WriterRoundTripIsExact) {
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> unit(-1, 1);
    std::uniform_int_distribution<int> exponent(-1070, 1020);
    std::vector<CCDQuery> queries(50);
    for (std::size_t k = 0; k < queries.size(); ++k) {
        queries[k].type = CCDQueryType::EdgeEdge;
        queries[k].ground_truth = k % 3 == 0;
        for (Vec3& v : queries[k].vertices)
            for (int a = 0; a < 3; ++a) v[a] = std::ldexp(unit(rng), exponent(rng));
    }
    queries[0].vertices[0] =
        Vec3(std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(),
             -std::numeric_limits<double>::min());
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() / "concord_test_ccd_roundtrip.csv";
    write_ccd_queries(path.string(), queries);
    const auto back = read_ccd_queries(path.string(), CCDQueryType::EdgeEdge);
    std::filesystem::remove(path);
    ASSERT_EQ(back.size(), queries.size());
    for (std::size_t k = 0; k < queries.size(); ++k) {
        EXPECT_EQ(back[k].ground_truth, queries[k].ground_truth);
        EXPECT_TRUE(back[k].exact);
        EXPECT_EQ(back[k].line, static_cast<long>(8 * k + 1));
        for (int i = 0; i < 8; ++i) EXPECT_EQ(back[k].vertices[i], queries[k].vertices[i]);
    }
}

TEST(CCDQueryIO, WriterUsesPowerOfTwoDenominators) {
    CCDQuery q;
    q.vertices[0] = Vec3(0.75, -3, 1e-3);
    std::ostringstream out;
    write_ccd_queries(out, {q});
    std::istringstream first_row(out.str().substr(0, out.str().find('\n')));
    std::vector<std::string> fields;
    for (std::string f; std::getline(first_row, f, ',');) fields.push_back(f);
    ASSERT_EQ(fields.size(), 7u);
    EXPECT_EQ(fields[0] + "/" + fields[1], "3/4");
    EXPECT_EQ(fields[2] + "/" + fields[3], "-3/1");
    const mpz_class den(fields[5]);  // 1e-3 as a double is m / 2^k
    EXPECT_EQ(mpz_popcount(den.get_mpz_t()), 1u) << fields[5];
    EXPECT_EQ(mpq_class(mpz_class(fields[4]), den), mpq_class(1e-3));
    EXPECT_EQ(fields[6], "0");
}

TEST(CCDQueryIO, WriterRejectsNonFiniteWithoutWriting) {
    CCDQuery q;
    q.vertices[6].y() = std::numeric_limits<double>::infinity();
    std::ostringstream out;
    EXPECT_THROW(write_ccd_queries(out, {CCDQuery{}, q}), InputError);
    EXPECT_EQ(out.str(), "");
}

TEST(CCDQueryIO, HandmadeFixturesMatchTheirGroundTruth) {
    const std::string dir = std::string(CONCORD_SOURCE_DIR) + "/tests/data/ccd/";
    for (auto [file, type] : {std::pair{"vf_handmade.csv", CCDQueryType::VertexFace},
                              std::pair{"ee_handmade.csv", CCDQueryType::EdgeEdge}}) {
        const auto queries = read_ccd_queries(dir + file, type);
        ASSERT_GE(queries.size(), 4u) << file;
        for (const CCDQuery& q : queries) {
            EXPECT_TRUE(q.exact) << file << ":" << q.line;
            const CCDResult r = run_ccd_query(q);
            EXPECT_TRUE(r.collides || !q.ground_truth) << file << ":" << q.line;
        }
    }
}

}  // namespace
}  // namespace concord
