// Reading and writing CCD queries in the CSV layout of the CCD benchmark of Wang et al. (2021).
//
// Each query is 8 rows, one per vertex in CCDQuery::vertices order; each row is
//     x_num,x_den,y_num,y_den,z_num,z_den,ground_truth
// with numerators and denominators integers of any size in decimal (either may be negative,
// a denominator may not be zero) and ground_truth 0 or 1, the same on all 8 rows of a query.
#pragma once

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "concord/collision/ccd/ccd_query.hpp"

namespace concord {

/// Reads every query of a benchmark CSV file. The rationals are read exactly (GMP) and rounded
/// to the nearest double; a query with a coordinate that no double represents exactly gets
/// `exact = false` (never the case for the benchmark's power-of-two denominators), and its
/// ground truth then describes the rational input, not necessarily the rounded doubles.
/// A first line whose fields all start with a letter is a header and is skipped; blank lines
/// are ignored; a trailing '\r' is dropped. Throws concord::InputError naming the file and line
/// for: an unreadable file, a row without exactly 7 fields, a field that is not an integer, a
/// zero denominator, a coordinate outside the range of double, a ground truth other than 0/1,
/// different ground truths within one query, or a row count that is not a multiple of 8.
std::vector<CCDQuery> read_ccd_queries(const std::string& path, CCDQueryType type);

/// The same from a stream; `name` is used in error messages in place of a path.
std::vector<CCDQuery> read_ccd_queries(std::istream& in, const std::string& name,
                                       CCDQueryType type);

/// Writes the queries exactly, without a header: every double becomes num/den with den a power
/// of two, so reading the file back gives the same coordinates (-0 reads back as 0). Throws
/// concord::InputError, before writing anything, if a coordinate is not finite (naming the
/// query), and if the file cannot be written.
void write_ccd_queries(const std::string& path, const std::vector<CCDQuery>& queries);

void write_ccd_queries(std::ostream& out, const std::vector<CCDQuery>& queries);

}  // namespace concord
