/*
 * PumaPlus::Wire::NativeCodec: the pair-list work of the worker's request path in C, between the link's
 * read of a REQUEST and app.call (the env) and between app.call and the link's write (the response head).
 * It implements exactly the interface of PumaPlus::Wire::RubyCodec (wire/ruby_codec.rb), the pure-Ruby
 * codec used when this extension is not built; both are held to the golden corpus (docs/PROTOCOL.md,
 * "Pair list"). Pure functions of their arguments, so they are marked Ractor-safe.
 */
#include <ruby.h>
#include <ruby/encoding.h>
#include <stdint.h>
#include <string.h>

#define MAX_NAME 0xFFFF

static VALUE protocol_error;

static uint32_t read_u32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

/* Pairs gathered on the C stack (where the GC sees them) before one rb_hash_bulk_insert, which grows the
 * env's table once instead of once per doubling. */
#define BATCH 64

/*
 * store_pairs(payload, hash, offset) -> hash: every pair of the list that starts at byte +offset+ of
 * +payload+ stored into +hash+ in order (a later pair overwrites an earlier one), names as interned frozen
 * binary Strings, values as new binary Strings. Raises ProtocolError for a truncated list, with
 * RubyCodec's messages, after storing the pairs before the bad one.
 */
static VALUE store_pairs(VALUE self, VALUE payload, VALUE hash, VALUE offset_value)
{
    long offset = NUM2LONG(offset_value);
    if (offset < 0)
        rb_raise(rb_eArgError, "offset can't be negative");
    StringValue(payload);
    Check_Type(hash, T_HASH);
    rb_check_frozen(hash); /* rb_hash_bulk_insert does not check */
    rb_encoding *binary = rb_ascii8bit_encoding();
    long size = RSTRING_LEN(payload);
    VALUE batch[BATCH * 2];
    long count = 0;
    while (offset < size) {
        /* re-read after every allocation: the payload stays alive on this stack, but not in one place */
        const unsigned char *bytes = (const unsigned char *)RSTRING_PTR(payload);
        long name_length = -1, value_length = -1, value_at = -1;
        if (offset + 2 <= size) {
            name_length = ((long)bytes[offset] << 8) | (long)bytes[offset + 1];
            value_at = offset + 2 + name_length;
            if (value_at + 4 <= size)
                value_length = (long)read_u32(bytes + value_at);
        }
        if (value_length < 0 || value_at + 4 + value_length > size) {
            rb_hash_bulk_insert(count * 2, batch, hash);
            if (value_length < 0)
                rb_raise(protocol_error, "truncated pair list: pair at byte %ld", offset);
            rb_raise(protocol_error, "truncated pair list: value of %ld bytes at byte %ld", value_length, value_at + 4);
        }
        batch[count * 2] = rb_enc_interned_str((const char *)bytes + offset + 2, name_length, binary);
        batch[count * 2 + 1] = rb_enc_str_new(RSTRING_PTR(payload) + value_at + 4, value_length, binary);
        if (++count == BATCH) {
            rb_hash_bulk_insert(count * 2, batch, hash);
            count = 0;
        }
        offset = value_at + 4 + value_length;
    }
    rb_hash_bulk_insert(count * 2, batch, hash);
    RB_GC_GUARD(payload);
    return hash;
}

static void append_one(VALUE buffer, VALUE name, VALUE value)
{
    StringValue(name);
    StringValue(value);
    long name_length = RSTRING_LEN(name);
    long value_length = RSTRING_LEN(value);
    if (name_length > MAX_NAME)
        rb_raise(protocol_error, "pair name of %ld bytes exceeds %d", name_length, MAX_NAME);
    unsigned char name_header[2] = { (unsigned char)(name_length >> 8), (unsigned char)name_length };
    unsigned char value_header[4] = { (unsigned char)(value_length >> 24), (unsigned char)(value_length >> 16),
                                      (unsigned char)(value_length >> 8), (unsigned char)value_length };
    rb_str_cat(buffer, (const char *)name_header, 2);
    rb_str_cat(buffer, RSTRING_PTR(name), name_length);
    rb_str_cat(buffer, (const char *)value_header, 4);
    rb_str_cat(buffer, RSTRING_PTR(value), value_length);
}

/* append_pair(buffer, name, value) -> buffer: one pair's bytes appended to the String +buffer+. */
static VALUE append_pair(VALUE self, VALUE buffer, VALUE name, VALUE value)
{
    StringValue(buffer);
    rb_str_modify(buffer);
    append_one(buffer, name, value);
    return buffer;
}

/* append_pairs(buffer, pairs) -> buffer: every [name, value] of the Array +pairs+, in order. */
static VALUE append_pairs(VALUE self, VALUE buffer, VALUE pairs)
{
    StringValue(buffer);
    Check_Type(pairs, T_ARRAY);
    rb_str_modify(buffer);
    for (long i = 0; i < RARRAY_LEN(pairs); i++) {
        VALUE pair = rb_check_array_type(RARRAY_AREF(pairs, i));
        if (NIL_P(pair) || RARRAY_LEN(pair) < 2)
            rb_raise(rb_eTypeError, "a pair must be [name, value]");
        append_one(buffer, RARRAY_AREF(pair, 0), RARRAY_AREF(pair, 1));
    }
    return buffer;
}

void Init_native_codec(void)
{
    rb_ext_ractor_safe(true);
    VALUE puma_plus = rb_define_module("PumaPlus");
    VALUE wire = rb_define_module_under(puma_plus, "Wire");
    protocol_error = rb_const_get(wire, rb_intern("ProtocolError"));
    rb_gc_register_mark_object(protocol_error);
    VALUE codec = rb_define_module_under(wire, "NativeCodec");
    rb_define_module_function(codec, "store_pairs", store_pairs, 3);
    rb_define_module_function(codec, "append_pair", append_pair, 3);
    rb_define_module_function(codec, "append_pairs", append_pairs, 2);
}
