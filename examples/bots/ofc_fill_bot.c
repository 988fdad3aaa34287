/* An open-face bot in C that speaks cpoker's line protocol (docs/bots.md): it keeps the first cards dealt and
 * fills the back, then the middle, then the front, the simplest legal placement there is (it fouls often).
 *
 *     cc -O2 -o ofc_fill_bot examples/bots/ofc_fill_bot.c
 *     cpoker ofc match heuristic cmd:./ofc_fill_bot --rules pineapple --hands 100
 *
 * Each request is one JSON line; this reads the three fields it needs ("board", "cards", "keep") by hand, so
 * it needs no JSON library, and answers {"board": "front / middle / back"}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE 65536

/* The text of the string field "name" of a JSON line, copied into out (no escapes occur in these fields). */
static int field(const char *line, const char *name, char *out, size_t size) {
    char key[64];
    snprintf(key, sizeof key, "\"%s\": \"", name);
    const char *start = strstr(line, key);
    if (!start) return 0;
    start += strlen(key);
    const char *end = strchr(start, '"');
    if (!end || (size_t)(end - start) >= size) return 0;
    memcpy(out, start, end - start);
    out[end - start] = '\0';
    return 1;
}

/* Split "a b c" into cards (2 characters each) after dropping "-" and spaces; returns how many. */
static int cards_of(const char *text, char cards[][3], int most) {
    int n = 0;
    for (const char *p = text; *p && n < most;) {
        while (*p == ' ') p++;
        if (!*p) break;
        if (*p == '-') { p++; continue; }
        cards[n][0] = p[0];
        cards[n][1] = p[1];
        cards[n][2] = '\0';
        n++;
        p += 2;
    }
    return n;
}

int main(void) {
    static char line[LINE];
    while (fgets(line, sizeof line, stdin)) {
        char board[256], dealt[256], rows[3][256];
        char cards[3][5][3], hand[17][3];
        int counts[3] = {0, 0, 0}, sizes[3] = {3, 5, 5};
        const char *keep_at = strstr(line, "\"keep\": ");
        if (!field(line, "board", board, sizeof board) || !field(line, "cards", dealt, sizeof dealt) || !keep_at) {
            fprintf(stderr, "ofc_fill_bot: a request without board, cards or keep\n");
            return 1;
        }
        int keep = atoi(keep_at + 8);
        /* the board's rows, split on " / " */
        char *row = board;
        for (int r = 0; r < 3; r++) {
            char *slash = strstr(row, " / ");
            if (slash) *slash = '\0';
            counts[r] = cards_of(row, cards[r], 5);
            if (slash) row = slash + 3;
        }
        int n = cards_of(dealt, hand, 17);
        for (int i = 0; i < keep && i < n; i++) {
            for (int r = 2; r >= 0; r--) {  /* back first */
                if (counts[r] < sizes[r]) {
                    strcpy(cards[r][counts[r]++], hand[i]);
                    break;
                }
            }
        }
        for (int r = 0; r < 3; r++) {
            rows[r][0] = '\0';
            if (!counts[r]) strcpy(rows[r], "-");
            for (int i = 0; i < counts[r]; i++) {
                if (i) strcat(rows[r], " ");
                strcat(rows[r], cards[r][i]);
            }
        }
        printf("{\"board\": \"%s / %s / %s\"}\n", rows[0], rows[1], rows[2]);
        fflush(stdout);
    }
    return 0;
}
