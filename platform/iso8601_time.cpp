#include "platform/iso8601_time.hpp"

#include <cstdio>
#include <ctime>
#include <stdexcept>

namespace memrel {
namespace {

// The number DIGITS characters long at `at`, or -1 when any of them is not a digit.
int number_at(const std::string& text, std::size_t at, std::size_t digits) {
  if (at + digits > text.size()) return -1;
  int n = 0;
  for (std::size_t i = at; i < at + digits; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    n = n * 10 + (text[i] - '0');
  }
  return n;
}

int days_in_month(int year, int month) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

[[noreturn]] void refuse(const std::string& what) { throw std::invalid_argument(what); }

}  // namespace

std::string history_time_text(const std::string& text) {
  const int year = number_at(text, 0, 4), month = number_at(text, 5, 2),
            day = number_at(text, 8, 2);
  if (year < 0 || month < 0 || day < 0 || text[4] != '-' || text[7] != '-')
    refuse("YYYY-MM-DD expected");
  if (month < 1 || month > 12) refuse("no month " + std::to_string(month));
  if (day < 1 || day > days_in_month(year, month))
    refuse("no day " + std::to_string(day) + " in its month");
  if (text.size() == 10) return text;
  if (text[10] != 'T' && text[10] != ' ') refuse("'T' expected after the date");
  const int hour = number_at(text, 11, 2), minute = number_at(text, 14, 2);
  if (hour < 0 || minute < 0 || text.size() < 16 || text[13] != ':')
    refuse("HH:MM expected after the date");
  if (hour > 23 || minute > 59) refuse("no time " + text.substr(11, 5) + " in a day");
  std::size_t at = 16;
  int second = 0;
  std::string fraction;
  if (at < text.size() && text[at] == ':') {
    second = number_at(text, at + 1, 2);
    if (second < 0 || second > 60) refuse("no second " + text.substr(at + 1, 2));
    at += 3;
    if (at < text.size() && (text[at] == '.' || text[at] == ',')) {
      std::size_t end = at + 1;
      while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
      if (end == at + 1) refuse("a decimal point with no digits after it");
      fraction = "." + text.substr(at + 1, end - at - 1);
      at = end;
    }
  }
  if (at == text.size()) return text;  // local time: the zone is unknown, the text kept
  int offset_minutes = 0;
  if (text[at] == 'Z' && at + 1 == text.size()) {
    offset_minutes = 0;
  } else if (text[at] == '+' || text[at] == '-') {
    const int oh = number_at(text, at + 1, 2);
    const bool colon = at + 3 < text.size() && text[at + 3] == ':';
    const int om = number_at(text, at + (colon ? 4 : 3), 2);
    if (oh < 0 || om < 0 || at + (colon ? 6 : 5) != text.size())
      refuse("an offset from UTC that is not Z, +HH:MM or -HH:MM");
    if (oh > 14 || om > 59) refuse("an offset from UTC beyond 14 hours");
    offset_minutes = (text[at] == '-' ? -1 : 1) * (oh * 60 + om);
  } else {
    refuse("'" + text.substr(at, 12) + "' after its time");
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second == 60 ? 59 : second;  // a leap second orders as the second before it
  const std::time_t utc = timegm(&tm) - static_cast<std::time_t>(offset_minutes) * 60;
  std::tm out{};
  gmtime_r(&utc, &out);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &out);
  return buffer + fraction + "Z";
}

}  // namespace memrel
