# A fifth of a second between two looks at a job. Fractional sleep is not
# everywhere.
sleep 0.2 2>/dev/null || sleep 1
