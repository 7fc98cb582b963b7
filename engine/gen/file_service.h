/*
 * engine/gen/file_service.h - the file of each I/O (file_service.c), and the
 * passes over the files it asks iogen.c about.
 *
 * Internal to engine/gen/, as draw.h is: the state is iogen.h's struct gen.
 */
#ifndef IOPLAN_ENGINE_FILE_SERVICE_H
#define IOPLAN_ENGINE_FILE_SERVICE_H

#include "engine/gen/iogen.h"

/* The file of the next I/O in direction d; -1 when none (busy set when one must open or close first). */
int32_t gen_pick_file(struct gen *g, uint8_t d);

/* iogen.c: whether f's pass is done in d, and whether every file's is (fio's loop is over). */
bool gen_pass_is_done(const struct gen *g, const struct gen_file *f, uint8_t d);
bool gen_loop_is_over(const struct gen *g, uint8_t d);

/* iogen.c: the pick found no file it may open (fio's -EBUSY): the mix's last decision is put back. */
void gen_mix_undo(struct gen *g);

/* iogen.c: every file starts a new pass (false: the window is done); one file starts over. */
bool gen_new_pass(struct gen *g, uint8_t d);
void gen_file_restart(struct gen *g, struct gen_file *f, uint8_t d);

#endif /* IOPLAN_ENGINE_FILE_SERVICE_H */
