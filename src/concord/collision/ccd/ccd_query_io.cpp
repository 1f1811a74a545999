#include "concord/collision/ccd/ccd_query_io.hpp"

#include <gmpxx.h>

#include <array>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <string_view>

#include "concord/math/error.hpp"
#include "concord/math/regular_file.hpp"

namespace concord {
namespace {

constexpr int kFieldsPerRow = 7;
constexpr int kRowsPerQuery = 8;

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split_fields(std::string_view line) {
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = line.find(',', start);
        fields.push_back(trim(line.substr(start, comma - start)));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return fields;
}

bool is_integer(std::string_view s) {
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) s.remove_prefix(1);
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

// A header is "clearly" one when no field could be data: every field starts with a letter.
bool is_header(const std::vector<std::string_view>& fields) {
    for (std::string_view f : fields)
        if (f.empty() || !std::isalpha(static_cast<unsigned char>(f.front()))) return false;
    return true;
}

class RowError {
  public:
    RowError(const std::string& name, long line)
        : prefix_(name + ":" + std::to_string(line) + ": ") {}
    [[noreturn]] void raise(const std::string& what) const { throw InputError(prefix_ + what); }

  private:
    std::string prefix_;
};

// A field as quoted in a message: a huge malformed field must not make a huge message.
std::string quoted(std::string_view field) {
    constexpr std::size_t kMax = 40;
    std::string q(1, '\'');
    q.append(field.substr(0, kMax));
    q.append(field.size() > kMax ? "...'" : "'");
    return q;
}

mpz_class parse_integer(std::string_view field, const char* column, const RowError& error) {
    if (!is_integer(field))
        error.raise(std::string("column ") + column + " is not an integer: " + quoted(field));
    if (field.front() == '+') field.remove_prefix(1);
    return mpz_class(std::string(field), 10);
}

// The double nearest to q (GMP's own conversion truncates); `exact` tells whether it equals q.
double nearest_double(const mpq_class& q, bool& exact) {
    const double truncated = q.get_d();
    if (!std::isfinite(truncated)) {
        exact = false;
        return truncated;
    }
    const mpq_class back(truncated);
    exact = back == q;
    if (exact) return truncated;
    const double away =
        std::nextafter(truncated, sgn(q) > 0 ? std::numeric_limits<double>::infinity()
                                             : -std::numeric_limits<double>::infinity());
    if (!std::isfinite(away)) return truncated;
    return abs(mpq_class(away) - q) < abs(q - back) ? away : truncated;
}

constexpr std::array<const char*, 6> kColumnNames = {"x_num", "x_den", "y_num",
                                                     "y_den", "z_num", "z_den"};
constexpr std::array<char, 3> kAxes = {'x', 'y', 'z'};

}  // namespace

std::vector<CCDQuery> read_ccd_queries(std::istream& in, const std::string& name,
                                       CCDQueryType type) {
    std::vector<CCDQuery> queries;
    CCDQuery current;
    current.type = type;
    int rows_in_current = 0;
    long line_number = 0;
    bool seen_content = false;
    std::string line;
    while (std::getline(in, line)) {
        ++line_number;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (trim(line).empty()) continue;
        const std::vector<std::string_view> fields = split_fields(line);
        if (!seen_content) {
            seen_content = true;
            if (is_header(fields)) continue;
        }
        const RowError error(name, line_number);
        if (static_cast<int>(fields.size()) != kFieldsPerRow)
            error.raise(
                "expected 7 comma-separated fields "
                "(x_num,x_den,y_num,y_den,z_num,z_den,ground_truth), found " +
                std::to_string(fields.size()));
        Vec3 vertex;
        for (int axis = 0; axis < 3; ++axis) {
            const mpz_class num = parse_integer(fields[2 * axis], kColumnNames[2 * axis], error);
            const mpz_class den =
                parse_integer(fields[2 * axis + 1], kColumnNames[2 * axis + 1], error);
            if (den == 0)
                error.raise(std::string("column ") + kColumnNames[2 * axis + 1] + " is zero");
            mpq_class q(num, den);
            q.canonicalize();
            bool exact = true;
            vertex[axis] = nearest_double(q, exact);
            if (!std::isfinite(vertex[axis]))
                error.raise(std::string("coordinate ") + kAxes[axis] + " = " + q.get_str() +
                            " is outside the range of double");
            current.exact = current.exact && exact;
        }
        const std::string_view truth = fields[6];
        if (truth != "0" && truth != "1")
            error.raise("ground_truth must be 0 or 1, found " + quoted(truth));
        const bool value = truth == "1";
        if (rows_in_current == 0) {
            current.line = line_number;
            current.ground_truth = value;
        } else if (value != current.ground_truth) {
            error.raise("ground_truth " + std::string(truth) + " differs from " +
                        (current.ground_truth ? "1" : "0") + " on line " +
                        std::to_string(current.line) + ", the first row of the same query");
        }
        current.vertices[rows_in_current] = vertex;
        if (++rows_in_current == kRowsPerQuery) {
            queries.push_back(current);
            current = CCDQuery{};
            current.type = type;
            rows_in_current = 0;
        }
    }
    if (in.bad()) throw InputError(name + ": read error after line " + std::to_string(line_number));
    if (rows_in_current != 0)
        throw InputError(name + ":" + std::to_string(current.line) +
                         ": incomplete query: " + std::to_string(rows_in_current) +
                         " rows, but every query has 8 (the number of data rows is not a "
                         "multiple of 8)");
    return queries;
}

std::vector<CCDQuery> read_ccd_queries(const std::string& path, CCDQueryType type) {
    require_regular_file(path);
    std::ifstream in(path);
    if (!in) throw InputError(path + ": cannot open CCD query file");
    return read_ccd_queries(in, path, type);
}

namespace {

// Checked before anything is written, so that a bad query never leaves a half-written file.
void check_finite(const std::vector<CCDQuery>& queries) {
    for (std::size_t k = 0; k < queries.size(); ++k)
        for (const Vec3& v : queries[k].vertices)
            if (!v.allFinite())
                throw InputError("CCD query " + std::to_string(k) +
                                 " has a coordinate that is not finite");
}

}  // namespace

void write_ccd_queries(std::ostream& out, const std::vector<CCDQuery>& queries) {
    check_finite(queries);
    for (const CCDQuery& q : queries) {
        const char truth = q.ground_truth ? '1' : '0';
        for (const Vec3& v : q.vertices) {
            for (int axis = 0; axis < 3; ++axis) {
                // mpq_class(double) is exact and canonical, so the denominator is 2^k.
                const mpq_class exact(v[axis]);
                out << exact.get_num().get_str() << ',' << exact.get_den().get_str() << ',';
            }
            out << truth << '\n';
        }
    }
}

void write_ccd_queries(const std::string& path, const std::vector<CCDQuery>& queries) {
    check_finite(queries);
    std::ofstream out(path);
    if (!out) throw InputError(path + ": cannot open for writing");
    write_ccd_queries(out, queries);
    out.flush();
    if (!out) throw InputError(path + ": write failed");
}

}  // namespace concord
