print("drilldown")
