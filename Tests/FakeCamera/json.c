#include "json.h"

#include <stdlib.h>
#include <string.h>

typedef struct { const char *p; const char *error; } parser;

static void skip_space(parser *ps) {
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static json_value *new_value(json_type type) {
    json_value *v = calloc(1, sizeof *v);
    if (v) v->type = type;
    return v;
}

static json_value *parse_value(parser *ps, int depth);

static char *parse_string_raw(parser *ps) {
    if (*ps->p != '"') { ps->error = ps->p; return NULL; }
    ps->p++;
    size_t capacity = 16, length = 0;
    char *out = malloc(capacity);
    if (!out) return NULL;
    while (*ps->p && *ps->p != '"') {
        char c = *ps->p++;
        if (c == '\\') {
            char e = *ps->p++;
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                unsigned code = 0;
                for (int i = 0; i < 4; i++) {
                    char h = *ps->p++;
                    code <<= 4;
                    if (h >= '0' && h <= '9') code |= (unsigned)(h - '0');
                    else if (h >= 'a' && h <= 'f') code |= (unsigned)(h - 'a' + 10);
                    else if (h >= 'A' && h <= 'F') code |= (unsigned)(h - 'A' + 10);
                    else { ps->error = ps->p; free(out); return NULL; }
                }
                c = code < 128 ? (char)code : '?';
                break;
            }
            case 0: ps->error = ps->p; free(out); return NULL;
            default: c = e; break;  // \" \\ \/
            }
        }
        if (length + 2 > capacity) {
            capacity *= 2;
            char *grown = realloc(out, capacity);
            if (!grown) { free(out); return NULL; }
            out = grown;
        }
        out[length++] = c;
    }
    if (*ps->p != '"') { ps->error = ps->p; free(out); return NULL; }
    ps->p++;
    out[length] = 0;
    return out;
}

static int append(json_value *v, char *key, json_value *item) {
    json_value **items = realloc(v->items, (size_t)(v->count + 1) * sizeof *items);
    if (!items) return 0;
    v->items = items;
    if (v->type == JSON_OBJECT) {
        char **keys = realloc(v->keys, (size_t)(v->count + 1) * sizeof *keys);
        if (!keys) return 0;
        v->keys = keys;
        keys[v->count] = key;
    }
    items[v->count++] = item;
    return 1;
}

static json_value *parse_container(parser *ps, int depth, int object) {
    json_value *v = new_value(object ? JSON_OBJECT : JSON_ARRAY);
    ps->p++;
    skip_space(ps);
    char close = object ? '}' : ']';
    if (*ps->p == close) { ps->p++; return v; }
    for (;;) {
        char *key = NULL;
        skip_space(ps);
        if (object) {
            key = parse_string_raw(ps);
            if (!key) goto fail;
            skip_space(ps);
            if (*ps->p != ':') { free(key); ps->error = ps->p; goto fail; }
            ps->p++;
        }
        json_value *item = parse_value(ps, depth + 1);
        if (!item || !append(v, key, item)) { free(key); json_free(item); goto fail; }
        skip_space(ps);
        if (*ps->p == ',') { ps->p++; continue; }
        if (*ps->p == close) { ps->p++; return v; }
        ps->error = ps->p;
        goto fail;
    }
fail:
    json_free(v);
    return NULL;
}

static json_value *parse_value(parser *ps, int depth) {
    if (depth > 32) { ps->error = ps->p; return NULL; }
    skip_space(ps);
    char c = *ps->p;
    if (c == '{' || c == '[') return parse_container(ps, depth, c == '{');
    if (c == '"') {
        char *s = parse_string_raw(ps);
        if (!s) return NULL;
        json_value *v = new_value(JSON_STRING);
        v->string = s;
        return v;
    }
    if (!strncmp(ps->p, "true", 4) || !strncmp(ps->p, "false", 5)) {
        json_value *v = new_value(JSON_BOOL);
        v->number = c == 't';
        ps->p += c == 't' ? 4 : 5;
        return v;
    }
    if (!strncmp(ps->p, "null", 4)) { ps->p += 4; return new_value(JSON_NULL); }
    if (c == '-' || (c >= '0' && c <= '9')) {
        char *end;
        double number = strtod(ps->p, &end);
        if (end == ps->p) { ps->error = ps->p; return NULL; }
        ps->p = end;
        json_value *v = new_value(JSON_NUMBER);
        v->number = number;
        return v;
    }
    ps->error = ps->p;
    return NULL;
}

json_value *json_parse(const char *text, const char **error) {
    parser ps = { text, NULL };
    json_value *v = parse_value(&ps, 0);
    if (v) {
        skip_space(&ps);
        if (*ps.p) { ps.error = ps.p; json_free(v); v = NULL; }
    }
    if (error) *error = ps.error ? ps.error : ps.p;
    return v;
}

void json_free(json_value *v) {
    if (!v) return;
    for (int i = 0; i < v->count; i++) {
        json_free(v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    free(v);
}

const json_value *json_get(const json_value *object, const char *key) {
    if (!object || object->type != JSON_OBJECT) return NULL;
    for (int i = 0; i < object->count; i++)
        if (!strcmp(object->keys[i], key)) return object->items[i];
    return NULL;
}

const char *json_string(const json_value *object, const char *key, const char *fallback) {
    const json_value *v = json_get(object, key);
    return v && v->type == JSON_STRING ? v->string : fallback;
}

double json_number(const json_value *object, const char *key, double fallback) {
    const json_value *v = json_get(object, key);
    return v && v->type == JSON_NUMBER ? v->number : fallback;
}

int json_bool(const json_value *object, const char *key, int fallback) {
    const json_value *v = json_get(object, key);
    return v && (v->type == JSON_BOOL || v->type == JSON_NUMBER) ? v->number != 0 : fallback;
}
