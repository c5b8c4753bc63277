; Derived slot defaults: the first allowed type in the order SYMBOL, STRING, INTEGER, FLOAT; its first
; allowed value, else the range bound, else nil, "", 0, 0.0 (not checked against allowed values).
(deftemplate t1 (slot a (type INTEGER SYMBOL)) (slot b (type FLOAT INTEGER)) (slot c (type FLOAT STRING)) (slot d (type NUMBER)) (slot e (type LEXEME)) (slot f (type FLOAT SYMBOL)) (slot g (type STRING SYMBOL)) (slot h (type FLOAT)) (slot i (type INTEGER FLOAT STRING)) (multislot m (type INTEGER)))
(deftemplate t2 (slot a (type INTEGER) (allowed-values 3 4)) (slot b (type FLOAT INTEGER) (range 5 10)) (slot c (type SYMBOL STRING) (allowed-strings "x" "y")) (slot d (allowed-values 1.5 a)) (slot e (type ?VARIABLE)) (slot f (type NUMBER LEXEME)))
(assert (t1))
(assert (t2))
(facts)
(deftemplate t3 (slot a (allowed-values 1.5 2.5)) (slot b (allowed-values "s" 3)) (slot c (allowed-integers 4 5)) (slot d (type INTEGER) (range 3 ?VARIABLE)) (slot e (type INTEGER) (range ?VARIABLE 7)) (slot h (type INTEGER FLOAT) (allowed-floats 2.5)) (slot i (allowed-symbols x y)) (slot j (type STRING) (allowed-values "q" "r")) (slot k (type INTEGER) (allowed-values 8 9)))
(assert (t3))
(facts)
(exit)
