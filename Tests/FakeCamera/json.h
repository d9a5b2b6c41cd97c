// A tiny JSON reader for the fake camera's configuration: enough for objects, arrays, strings (with the usual
// escapes; \u is kept only for ASCII), numbers, true/false/null. Not a general-purpose parser.
#ifndef FAKEV4L2_JSON_H
#define FAKEV4L2_JSON_H

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json_value {
    json_type type;
    double number;              // JSON_NUMBER, JSON_BOOL (0/1)
    char *string;               // JSON_STRING
    int count;                  // JSON_ARRAY, JSON_OBJECT
    char **keys;                // JSON_OBJECT
    struct json_value **items;  // JSON_ARRAY, JSON_OBJECT
} json_value;

// NULL on a syntax error; *error then says where.
json_value *json_parse(const char *text, const char **error);
void json_free(json_value *value);
const json_value *json_get(const json_value *object, const char *key);
const char *json_string(const json_value *object, const char *key, const char *fallback);
double json_number(const json_value *object, const char *key, double fallback);
int json_bool(const json_value *object, const char *key, int fallback);

#endif
